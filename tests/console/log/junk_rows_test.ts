// A row of the log hand-edited (or left by a bad write) into junk: a number,
// null, an object of another shape, bytes of truncated JSON. The pages, the
// detail, the stats, the live reader, the hook index and trimming pass over
// it (the rows around it are still shown) rather than throw, which the
// console answered with a 500 on every page of the log.

import assert from "node:assert/strict";
import { DeliveryStore, type DeliveryView, numberAt } from "../../../console/log/mod.ts";

const JUNK: [string, unknown][] = [
  ["a number", 42],
  ["null", null],
  ["a string", "x"],
  ["an object of another shape", { foo: 1 }],
  ["an array", [1, 2]],
  ["a summary with fields of the wrong type", { seq: 3, id: 7, hookId: null, receivedAt: 5, status: "200" }],
  ["truncated JSON bytes", new TextEncoder().encode('{"seq":3,"id":"q3-0","hoo')],
  ["bytes that are not JSON", new Uint8Array([1, 2, 3])],
];

for (const [name, junk] of JUNK) {
  Deno.test(`a row of the log that is ${name}: every reader passes over it`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      const store = new DeliveryStore(kv, { retain: 3 });
      const stored: DeliveryView[] = [];
      for (let n = 1; n <= 6; n++) stored.push(...await store.add("h1", [{ activity: { title: `p${n}` } }]));
      const [s1, s2, s3, s4, s5, s6] = stored.map((view) => view.seq);
      await kv.set(["console_delivery_log", s3], junk);
      const others = [s6, s5, s4, s2, s1];
      const seqs = (views: { seq: number }[]) => views.map((v) => v.seq);
      assert.deepEqual(seqs((await store.page({})).values), others);
      assert.deepEqual(seqs((await store.page({ hookId: "h1" })).values), others);
      assert.deepEqual(seqs((await store.page({ q: "p5" })).values), [s5]);
      assert.deepEqual(seqs((await store.page({ status: "accepted" })).values), others);
      assert.deepEqual(seqs((await store.page({ before: s5, limit: 2 })).values), [s4, s2]);
      assert.deepEqual(seqs((await store.page({ after: s1, limit: 2 })).values), [s4, s2]);
      assert.deepEqual(seqs(await store.list({})), others);
      assert.deepEqual(seqs(await store.list({ after: s1, forward: true })), [s2, s4, s5, s6]);
      const stats = await store.stats();
      assert.equal(stats.accepted + stats.rejected, 5);
      assert.equal((await store.stats("h1")).accepted, 5);
      assert.equal((await store.get(stored[3].id))?.title, "p4");
      // The live reader reads the newest numbers: a junk row there, and a good one above it.
      const reader = store.liveReader();
      await reader.start();
      const now = numberAt(Date.now());
      await kv.set(["console_delivery_log", now], junk);
      await kv.set(["console_delivery_log", now + 1], { ...stored[5], seq: now + 1 });
      assert.deepEqual(seqs(await reader.next()), [now + 1]);
      await kv.delete(["console_delivery_log", now]);
      await kv.delete(["console_delivery_log", now + 1]);
      await store.index();
      // Trimming to 3 takes the oldest rows, the junk among them, and stops there.
      await store.flush();
      assert.deepEqual(seqs(await store.list({})), [s6, s5, s4]);
      assert.equal((await kv.get(["console_delivery_log", s3])).versionstamp, null, "the junk row is trimmed");
      assert.deepEqual(seqs((await store.page({ hookId: "h1" })).values), [s6, s5, s4]);
    } finally {
      kv.close();
    }
  });
}

Deno.test("junk rows at the top of the log: list({ limit }) still gives the newest good summaries", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv);
    const stored: DeliveryView[] = [];
    for (let n = 1; n <= 3; n++) stored.push(...await store.add("h1", [{ activity: { title: `p${n}` } }]));
    const top = stored[2].seq;
    // Above the newest good row: a few junk rows (the live stream's `ready` takes list({ limit: 1 })).
    for (let i = 1; i <= 3; i++) await kv.set(["console_delivery_log", top + i], JUNK[i % JUNK.length][1]);
    assert.deepEqual((await store.list({ limit: 1 })).map((v) => v.seq), [top]);
    assert.deepEqual((await store.list({ limit: 2 })).map((v) => v.seq), [top, stored[1].seq]);
    assert.deepEqual((await store.list({ hookId: "h1", limit: 1 })).map((v) => v.seq), [top]);
  } finally {
    kv.close();
  }
});
