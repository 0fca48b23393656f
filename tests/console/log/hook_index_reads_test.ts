// A hook's listing from the index (issue 23): whole and in order whatever part
// of the log the index holds (property), after trimming, from a log an earlier
// version wrote, and once every row has expired.

import assert from "node:assert/strict";
import fc from "fast-check";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { keys, seqs, store } from "./_hook_index.ts";

Deno.test("a hook's listing is whole and in order whatever part of the log the index holds (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 60 }),
      fc.nat(),
      fc.nat(),
      fc.integer({ min: 1, max: 8 }),
      async (hooks, markAt, cursorAt, limit) => {
        const kv = await Deno.openKv(":memory:");
        try {
          const deliveries = new DeliveryStore(kv, { retain: 1000 });
          const mark = markAt % (hooks.length + 1);
          // Indexed up to `mark`, the rest in the log alone.
          if (mark > 0) await store(kv, deliveries, hooks.slice(0, mark));
          await deliveries.index();
          if (mark < hooks.length) await store(kv, deliveries, hooks.slice(mark), mark + 1);
          assert.equal((await kv.get(["console_delivery_hook_mark"])).value, mark > 0 ? mark : null);
          for (const hookId of ["a", "b", "c"]) {
            const all = hooks.flatMap((h, i) => h === hookId ? [i + 1] : []);
            const newest = [...all].reverse();
            assert.deepEqual(seqs(await deliveries.list({ hookId, limit: 100 })), newest);
            assert.deepEqual(seqs(await deliveries.list({ hookId, limit })), newest.slice(0, limit));
            const cursor = cursorAt % (hooks.length + 2);
            assert.deepEqual(
              seqs(await deliveries.list({ hookId, after: cursor, forward: true, limit })),
              all.filter((seq) => seq > cursor).slice(0, limit),
            );
            const older = await deliveries.page({ hookId, before: cursor, limit });
            assert.deepEqual(seqs(older.values), newest.filter((seq) => seq < cursor).slice(0, limit));
            const newer = await deliveries.page({ hookId, after: cursor, limit });
            assert.deepEqual(seqs(newer.values), all.filter((seq) => seq > cursor).slice(0, limit).reverse());
            const stats = await deliveries.stats(hookId);
            assert.equal(stats.accepted, all.length);
            assert.equal(stats.last?.seq, newest[0]);
          }
        } finally {
          kv.close();
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("trimming deletes the packs below the retention; the one across it lists only what the log keeps", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv, { retain: 10 });
    await store(kv, deliveries, ["a", "b", "a", "b", "a", "b"]);
    await deliveries.index();
    await store(kv, deliveries, ["a", "a", "a", "a"], 7);
    await deliveries.index();
    // New postbacks push the oldest out (trimmed behind them): 1 and 2, then 3 to 6.
    const [v11] = await deliveries.add("b", [{}]);
    const [v12] = await deliveries.add("b", [{}]);
    await deliveries.flush();
    const [n11, n12] = [v11.seq, v12.seq];
    assert.deepEqual(seqs(await deliveries.list({ limit: 100 })), [n12, n11, 10, 9, 8, 7, 6, 5, 4, 3]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a", limit: 100 })), [10, 9, 8, 7, 5, 3]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "b", limit: 100 })), [n12, n11, 6, 4]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a", after: 0, forward: true })), [3, 5, 7, 8, 9, 10]);
    assert.deepEqual(seqs((await deliveries.page({ hookId: "b", before: 5 })).values), [4]);
    assert.equal((await deliveries.stats("a")).accepted, 6);
    for (let i = 0; i < 4; i++) await deliveries.add("c", [{}]);
    await deliveries.flush();
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a", limit: 100 })), [10, 9, 8, 7]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "b", limit: 100 })), [n12, n11]);
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), [["console_delivery_hook_pack", "a", 10]]);
  } finally {
    kv.close();
  }
});

Deno.test("a log an earlier version wrote (a copy per delivery, no mark) is listed by hook, and indexed at start", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const view = (seq: number, hookId: string) => ({
      seq,
      id: `old${seq}-0`,
      hookId,
      receivedAt: new Date().toISOString(),
      verb: "jive:created",
      title: `old ${seq}`,
      webhook: "",
      status: 200,
    });
    const op = kv.atomic();
    for (let seq = 1; seq <= 5; seq++) {
      const v = view(seq, seq % 2 ? "a" : "b");
      op.set(["console_delivery_log", seq], v).set(["console_delivery_log_by_hook", v.hookId, seq], v);
    }
    assert.ok((await op.set(["console_delivery_seq"], 5).commit()).ok);
    const deliveries = new DeliveryStore(kv);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [5, 3, 1]);
    await deliveries.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 5);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [5, 3, 1]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "b", after: 2, forward: true })), [4]);
  } finally {
    kv.close();
  }
});

Deno.test("once every row of the log is gone (expired), a hook's packs list nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv);
    await store(kv, deliveries, ["a", "a", "b"]);
    await deliveries.index();
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [2, 1]);
    // KV expires the rows (each lives maxAgeMs); their packs may outlive them a little.
    for (const seq of [1, 2, 3]) await kv.delete(["console_delivery_log", seq]);
    assert.deepEqual(await deliveries.list({ hookId: "a" }), []);
    assert.equal((await deliveries.stats("a")).accepted, 0);
  } finally {
    kv.close();
  }
});

/** `kv` with the log's rows read by range (a pass reads the log so; trimming and listing read by prefix) counted. */
