// The live reader's floor, the first number of the settle window's first
// millisecond: that number is the first a process in writer slot 0 takes in
// that millisecond, so the window holds it, as the hook index's passes take
// it (they pack the rows below it only). A row numbered there and committed
// after the reader looked is given, as any in the window.

import assert from "node:assert/strict";
import { DeliveryStore, type DeliveryView, LiveReader, numberAt } from "../../../console/log/mod.ts";
import { postback } from "../_postback.ts";

const titles = (views: DeliveryView[]) => views.map((view) => view.title);

for (const settleMs of [0, 1_000]) {
  Deno.test(`a row numbered at the first number of the live reader's window (${settleMs} ms) is given`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      const store = new DeliveryStore(kv, { settleMs });
      const now = Date.now();
      const reader = new LiveReader(kv, { settleMs, now: () => now });
      await reader.start();
      assert.deepEqual(await reader.next(), []);
      // Slot 0's first number of the window's first millisecond, committed now: within the window.
      const op = kv.atomic();
      store.write(postback("at the window's start", numberAt(now - settleMs)), op);
      assert.ok((await op.commit()).ok);
      assert.deepEqual(titles(await reader.next()), ["at the window's start"]);
      assert.deepEqual(await reader.next(), [], "and once");
    } finally {
      kv.close();
    }
  });
}
