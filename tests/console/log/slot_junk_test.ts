// Writer slots' leases hand-edited into junk: an end that is no number, or
// one no process can have set (a lease lasts 30 s; this is a year past the
// clock). Before, an end of "z" numbered every row NaN (all at one key, none
// listed) and an end far ahead held its slot for good (all 32 so: nothing
// could be stored). Such a lease is free, and its end bounds no number.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

const JUNK: unknown[] = [
  { owner: "x", until: "z" },
  { owner: "x", until: 1e300 },
  { owner: "x", until: Date.now() + 365 * 86_400_000 },
  { owner: "x", until: Infinity },
];

for (const junk of JUNK) {
  Deno.test(`every writer slot's lease ${JSON.stringify(junk)}: two consoles number their rows and list them`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      for (let slot = 0; slot < 32; slot++) await kv.set(["console_delivery_slot", slot], junk);
      const stores = [new DeliveryStore(kv), new DeliveryStore(kv)];
      assert.equal(await stores[0].canNumber(), true);
      const views = [];
      for (let n = 0; n < 6; n++) views.push(...await stores[n % 2].add("h1", [{ activity: { title: `t${n}` } }]));
      for (const view of views) assert.ok(Number.isSafeInteger(view.seq), `numbered ${view.seq}`);
      assert.equal(new Set(views.map((view) => view.seq)).size, 6);
      assert.equal((await stores[0].list({ limit: 10 })).length, 6);
      for (const store of stores) await store.flush();
    } finally {
      kv.close();
    }
  });
}
