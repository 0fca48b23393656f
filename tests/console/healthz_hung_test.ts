/**
 * `GET /healthz` over a KV whose read hangs (a KV Connect server gone
 * quiet): probes that come meanwhile share the one read in flight rather
 * than each starting another, and each is answered 503 once the read has
 * not answered within 2 s (docs/observability.md: 200 while the KV answers,
 * 503 otherwise) instead of waiting with it for as long as the KV is quiet.
 */

import assert from "node:assert/strict";
import { startConsole } from "./_helpers.ts";

/** Holds the console's health reads (`["console_health"]`) of `kv` until `release()`, counting them. */
function holdHealthReads(
  kv: Deno.Kv,
): { reads: () => number; started: Promise<void>; release: () => Promise<unknown> } {
  let reads = 0;
  let open!: () => void;
  let gate = new Promise<void>((resolve) => open = resolve);
  let second!: () => void;
  const started = new Promise<void>((resolve) => second = resolve);
  const held: Promise<unknown>[] = [];
  const get = kv.get.bind(kv);
  kv.get = ((key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (key[0] !== "console_health") return get(key, options);
    if (++reads === 2) second();
    const read = gate.then(() => get(key, options));
    held.push(read);
    return read;
  }) as Deno.Kv["get"];
  return {
    reads: () => reads,
    started,
    release: () => {
      open();
      gate = Promise.resolve();
      return Promise.all(held);
    },
  };
}

Deno.test("GET /healthz over a hung KV: 20 probes at once share one read and are answered 503", async () => {
  const t = await startConsole();
  const { reads, started, release } = holdHealthReads(t.kv);
  try {
    const probes = Promise.all(Array.from({ length: 20 }, async () => {
      const res = await fetch(`${t.origin}/healthz`);
      return [res.status, await res.json()];
    }));
    // A second read started means the probes each read for themselves (and each waits for the KV as long as it hangs).
    const outcome = await Promise.race([probes, started.then(() => "a second read started")]);
    assert.equal(reads(), 1, `${reads()} health reads started for 20 probes at once over a hung KV`);
    assert.ok(Array.isArray(outcome));
    for (const answer of outcome) assert.deepEqual(answer, [503, { status: "kv unavailable" }]);
    await release(); // the hung read ends (and the route heard it) before the next probe arrives
    const later = await fetch(`${t.origin}/healthz`);
    assert.deepEqual([later.status, await later.json()], [200, { status: "ok" }]);
    assert.equal(reads(), 2, "a probe after the hung read ended reads the KV again");
  } finally {
    await release();
    await t.close();
  }
});
