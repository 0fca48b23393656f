// What a wake of the live view costs: the reader is woken at every commit of
// the log under load, and a settle window then holds thousands of rows
// (about 20,000 at 2,000 rows a second). A wake that finds one new row must
// read about that row, not the whole window again; a late commit below the
// rows read is still given at that wake.

import assert from "node:assert/strict";
import { DeliveryStore, LiveReader } from "../../../console/log/mod.ts";
import { counting } from "../_kv_faults.ts";

Deno.test("a wake of the live reader after one new row reads a few entries, not the settle window's 2,000 rows", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 10_000 });
    const counted = counting(kv);
    const reader = new LiveReader(counted.kv, { settleMs: 10_000 });
    await reader.start();
    for (let n = 0; n < 2_000; n += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, k) => store.add("h1", [{ activity: { title: `t${n + k}` } }])));
    }
    assert.equal((await reader.next()).length, 2_000);
    for (let round = 0; round < 3; round++) {
      const [row] = await store.add("h1", [{ activity: { title: `new ${round}` } }]);
      const before = counted.read();
      assert.deepEqual((await reader.next()).map((view) => view.id), [row.id]);
      const read = counted.read() - before;
      assert.ok(read <= 10, `a wake read ${read} entries for one new row`);
    }
  } finally {
    kv.close();
  }
});
