// The live view of one hook in a busy log: the newest rows are not packed
// yet (the hook index stays a settle window behind), so the reader finds
// them among other hooks' rows. A new delivery of the hook must be given at
// once, however many rows of other hooks the window holds.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

Deno.test("a hook's live reader gives its new delivery at once when the settle window holds 3,000 rows of other hooks", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 10_000 });
    const reader = store.liveReader("h1");
    await reader.start();
    for (let n = 0; n < 3_000; n += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, k) => store.add(`other${k % 10}`, [{ activity: { title: `t${n + k}` } }])),
      );
    }
    assert.deepEqual(await reader.next(), []);
    const [mine] = await store.add("h1", [{ activity: { title: "mine" } }]);
    assert.deepEqual((await reader.next()).map((view) => view.id), [mine.id]);
    assert.deepEqual(await reader.next(), [], "given once");
  } finally {
    kv.close();
  }
});
