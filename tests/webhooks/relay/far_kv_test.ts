// A worker over a KV far away (each commit a round trip): it holds what its
// slots use up while a take commits, taken many to a commit, rather than a
// few at a time with its slots idle between round trips; and after its own
// take it lists again without reading the take counter, which its take
// committed (a round trip less a batch). Each entry is still delivered once.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

async function outboxEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: ["relay_due"] }, { limit: 1 })) return false;
  return true;
}

/** What a worker did to `kv`: entries moved by each take commit, and reads of a take counter. */
interface Watched {
  takes: number[];
  counterReads: number;
}

/** Wraps `kv` (in place) to count takes and take-counter reads, each commit held `delayMs` first as if far away. */
function watchKv(kv: Deno.Kv, delayMs: number): Watched {
  const watched: Watched = { takes: [], counterReads: 0 };
  const [atomic, get] = [kv.atomic.bind(kv), kv.get.bind(kv)];
  kv.get = ((key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (key[0] === "relay_take") watched.counterReads++;
    return get(key, options);
  }) as typeof kv.get;
  kv.atomic = () => {
    const op = atomic();
    let [take, moved] = [false, 0];
    const [sum, set, commit] = [op.sum.bind(op), op.set.bind(op), op.commit.bind(op)];
    op.sum = (key, n) => (take ||= key[0] === "relay_take", sum(key, n));
    op.set = (key, value, options) => (moved += key[0] === "relay_due" ? 1 : 0, set(key, value, options));
    op.commit = async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const result = await commit();
      if (take && result.ok) watched.takes.push(moved);
      return result;
    };
    return op;
  };
  return watched;
}

/** Writes `n` postbacks for an app that answers at once, runs one worker over `kv` as `watch` sees it, till all went. */
async function deliverAll(
  n: number,
  delayMs: number,
  concurrency: number,
  lease: { leaseMs?: number; attemptTimeoutMs?: number } = {},
): Promise<Watched> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, ...lease });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    await relay.destinations.list();
    await new Promise((r) => setTimeout(r, 50)); // the writer's list reloads after the add
    const P = "f".repeat(64);
    await writeAll(kv, relay.write, Array.from({ length: n }, (_, i) => postback("h1", i, P)), 50);
    const watched = watchKv(kv, delayMs);
    const worker = relay.run({ concurrency });
    // Delivered and recorded: a worker stopped with a request out gives its entry back, answered or not.
    await until(async () => app.received.length >= n && await outboxEmpty(kv), 60_000, "every entry");
    await worker.stop();
    assert.equal(app.received.length, n, "an entry was delivered twice");
    assert.equal(new Set(app.received.map((r) => JSON.parse(r.body).data.index)).size, n);
    const forwards = await relay.forwards(P);
    const bad = forwards.filter((f) => f.state !== "delivered" || f.attempts !== 1).map((f) =>
      `${f.index} ${f.state} ${f.attempts}`
    );
    assert.deepEqual([forwards.length, bad], [n, []]);
    return watched;
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("over a KV whose commits take 100 ms, a worker takes more than twice its concurrency to a commit", async () => {
  const { takes } = await deliverAll(120, 100, 2);
  // Twice the concurrency (4) is what a worker holds on a KV close by; far away its slots use up more than that
  // while a take commits, so it holds and takes more.
  assert.ok(Math.max(...takes) > 4, `takes of ${takes.join(", ")}`);
  assert.equal(takes.reduce((a, b) => a + b, 0), 120);
});

Deno.test("a worker that alone takes from its partition reads the take counter once, not before every list", async () => {
  const { takes, counterReads } = await deliverAll(60, 0, 2);
  assert.ok(takes.length >= 5, `takes of ${takes.join(", ")}`); // several lists, each after the worker's own take
  assert.equal(counterReads, 1, `${counterReads} reads for ${takes.length} takes`);
});

Deno.test("over a KV whose commits take 100 ms, a worker holds no more than it starts before the leases run out", async () => {
  // A buffered entry starts only while its lease outlasts its attempt by a margin: here a second after its take. Each
  // slot holds an entry for its attempt and the commit that records it (100 ms), so a worker with two slots starts
  // about 20 a second; holding more, the rest sit past their second, are given back and taken again.
  const { takes } = await deliverAll(80, 100, 2, { leaseMs: 4_000, attemptTimeoutMs: 2_000 });
  assert.equal(
    takes.reduce((a, b) => a + b, 0),
    80,
    `entries given back and taken again: takes of ${takes.join(", ")}`,
  );
});
