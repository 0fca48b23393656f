// The trimming lease hand-edited to an end no process can have set (a
// lease lasts 30 s; this is years past the clock) or that is no number:
// before, an end far ahead held trimming for good and the log grew past
// its retention. Such a lease is free.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

for (const until of [1e300, Date.now() + 365 * 86_400_000, Infinity, "z"]) {
  Deno.test(`a trimming lease that ends at ${String(until)}: the log is trimmed to its retention`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      await kv.set(["console_delivery_trim_lease"], { owner: "gone", until });
      const store = new DeliveryStore(kv, { retain: 10 });
      for (let n = 0; n < 60; n++) await store.add("h1", [{ activity: { title: `t${n}` } }]);
      await store.flush();
      assert.equal((await store.list({ limit: 100 })).length, 10);
    } finally {
      kv.close();
    }
  });
}
