// Trimming without a counter (issue 41): the log's rows are counted by the
// written shards, bumped with `sum` after each commit, and one process at a
// time trims (a lease). Two writers on one KV file keep the log at its
// retention, and trim no row twice.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";

async function rows(kv: Deno.Kv, prefix: string): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [prefix] })) n++;
  return n;
}

Deno.test("two writers on one KV file keep the log at its retention: one trims, the newest stay", () =>
  withTwoHandles(async (a, b) => {
    const stores = [new DeliveryStore(a, { retain: 40 }), new DeliveryStore(b, { retain: 40 })];
    const written = await Promise.all(
      Array.from({ length: 150 }, (_, n) => stores[n % 2].add("h1", [{ activity: { title: `t${n}` } }])),
    );
    await stores[0].flush();
    await stores[1].flush();
    await stores[0].flush(); // whichever holds the lease trims what the other counted last
    const kept = await stores[0].list({ limit: 1000 });
    assert.equal(kept.length, 40);
    const newest = written.flat().map((view) => view.seq).sort((p, q) => q - p).slice(0, 40);
    assert.deepEqual(kept.map((view) => view.seq), newest);
    assert.equal(await rows(a, "console_delivery_body"), 40, "the payloads of trimmed rows went with them");
    // Written less trimmed is the log's rows: nothing trimmed twice.
    let written_ = 0n;
    for await (const e of a.list<Deno.KvU64>({ prefix: ["console_delivery_written"] })) written_ += e.value.value;
    const trimmed = (await a.get<Deno.KvU64>(["console_delivery_trimmed"])).value!.value;
    assert.equal(written_, 150n);
    assert.equal(written_ - trimmed, 40n);
    // One of them holds the trimming lease.
    const lease = await a.get<{ owner: string }>(["console_delivery_trim_lease"]);
    assert.ok(lease.value?.owner);
  }));

Deno.test("rows gone without a trim (expired) are counted again by the next holder of the lease", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 10 });
    for (let n = 0; n < 12; n++) await store.add("h1", [{ activity: { title: `t${n}` } }]);
    await store.flush();
    assert.equal((await store.list({ limit: 100 })).length, 10);
    // KV expires the 5 oldest (maxAgeMs): the count says 10, the log holds 5.
    const old = await store.list({ limit: 5, forward: true, after: 0 });
    for (const view of old) await kv.delete(["console_delivery_log", view.seq]);
    await kv.delete(["console_delivery_trim_lease"]); // its holder stopped; the next counts the log
    const next = new DeliveryStore(kv, { retain: 10 });
    for (let n = 0; n < 3; n++) await next.add("h1", [{ activity: { title: `u${n}` } }]);
    await next.flush();
    assert.equal((await next.list({ limit: 100 })).length, 8, "nothing trimmed: 8 rows are below 10");
  } finally {
    kv.close();
  }
});
