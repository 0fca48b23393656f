// A delivery's body entry hand-edited (or left by a bad write) into junk: a
// number, a string, an object of another shape, fields of the wrong type.
// The store's `get` answers no delivery, the text search passes over it,
// and the detail page says it is not found: before, the page was a 500
// (`text.replace is not a function`) and the search threw.

import assert from "node:assert/strict";
import type { DeliveryStore } from "../../../console/log/mod.ts";
import { withSignedIn } from "../_helpers.ts";

const JUNK: unknown[] = [
  42,
  "x",
  { foo: 1 },
  { id: 5, payload: 7 },
  { payload: 5, truncated: "no" },
  { id: "d", hookId: "h1", receivedAt: "2026-11-30T00:00:00Z", verb: "v", title: "t", webhook: "w", status: 200 },
];

Deno.test("a junk body entry: no delivery, the search passes over it, and its page is a 404", () =>
  withSignedIn({ connect: false }, async ({ t, client }) => {
    const store: DeliveryStore = t.app.deliveries;
    for (const [n, junk] of JUNK.entries()) {
      const [view] = await store.add("h1", [{ activity: { title: `needle ${n}`, content: "hay".repeat(2000) } }]);
      await t.kv.set(["console_delivery_body", view.id], junk);
      assert.equal(await store.get(view.id), null, `junk ${JSON.stringify(junk)}`);
      // A search of the payloads reads the body entries (of one hook, also the row beside it).
      assert.deepEqual((await store.page({ q: "hayhay" })).values, []);
      assert.deepEqual((await store.page({ q: "hayhay", hookId: "h1" })).values, []);
      const res = await client.fetch(`/deliveries/${view.id}`);
      await res.body?.cancel();
      assert.equal(res.status, 404, `the page of a delivery whose body is ${JSON.stringify(junk)}`);
    }
    // A good one beside them is still shown and found.
    const [good] = await store.add("h1", [{ activity: { title: "good", content: "hay".repeat(2000) } }]);
    assert.equal((await store.get(good.id))?.title, "good");
    assert.deepEqual((await store.page({ q: "hayhay" })).values.map((v) => v.id), [good.id]);
    const res = await client.fetch(`/deliveries/${good.id}`);
    await res.body?.cancel();
    assert.equal(res.status, 200);
  }));
