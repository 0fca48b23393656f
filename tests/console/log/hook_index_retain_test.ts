// The hook index against the retention: a pass leaves out the rows the
// trimmer will take, but the trimmer keeps up to its slack past the
// retention (it trims once 32 rows are past it). A row the log still holds
// must be in its hook's listing too.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

Deno.test("a row the log keeps within the trimming slack is listed by its hook once the index passed it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 50, settleMs: 0 });
    for (let n = 0; n < 70; n++) await store.add("h1", [{ activity: { title: `t${n}` } }]);
    await store.index();
    const all = await store.list({ limit: 1000 });
    // 20 past the retention, below the slack: the log keeps them all.
    assert.equal(all.length, 70);
    const hook = await store.list({ hookId: "h1", limit: 1000 });
    assert.deepEqual(hook.map((view) => view.seq), all.map((view) => view.seq));
    const page = await store.page({ hookId: "h1", limit: 200 });
    assert.equal(page.values.length, 70);
  } finally {
    kv.close();
  }
});
