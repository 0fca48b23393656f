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

Deno.test("trimming the receiver's rows deletes a long payload's entry of its own, and leaves none behind", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 2 });
    await store.ready();
    const ids: string[] = [];
    // Numbered by this process as the receiver's write is; every other payload too long to go in its row.
    for (let n = 0; n < 6; n++) {
      const op = kv.atomic();
      const postbackId = `t${n}-`.padEnd(64, "0");
      const activity = { verb: "jive:created", title: `t${n}`, content: n % 2 ? "x".repeat(5000) : "short" };
      const postback = { activity, webhook: { id: "h1", tenantId: "t1" }, community: {}, receivedAt: Date.now() };
      const first = store.write(
        { ...postback, postbackId, index: 0, count: 1 } as unknown as Parameters<DeliveryStore["write"]>[0],
        op,
      );
      assert.ok((await op.commit()).ok);
      await store.recordAttempt({
        postbackId,
        status: 200,
        reason: "Delivered",
        durationMs: 1,
        receivedAt: 0,
        bodyExcerpt: "",
        headers: {},
        itemCount: 1,
      }, first);
      ids.push((await store.list({ limit: 1 }))[0].id);
    }
    await store.flush();
    const kept = await store.list({ limit: 10 });
    assert.deepEqual(kept.map((view) => view.id), ids.slice(4).reverse());
    const bodies: unknown[] = [];
    for await (const e of kv.list({ prefix: ["console_delivery_body"] })) bodies.push(e.key[1]);
    assert.deepEqual(bodies, [ids[5]], "only the kept long payload's entry");
    assert.equal((await store.get(ids[5]))?.payload.length! > 5000, true);
  } finally {
    kv.close();
  }
});
