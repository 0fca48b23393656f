// What storing a postback costs and takes: a bounded number of reads at any
// history size, retention catching up, payloads cut to fit one KV value, and
// too many items refused whole (issue 15, item 9).

import assert from "node:assert/strict";
import { DeliveryStore, MAX_POSTBACK_ITEMS, MAX_WIDE_PAYLOAD_CHARS } from "../../../console/log/mod.ts";
import { counting } from "../_kv_faults.ts";
import { count, item, withStore } from "./_delivery_store.ts";

Deno.test("storing reads a bounded number of entries, whatever the history holds", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 50 });
    for (let n = 0; n < 400; n++) await store.add("h1", [item(n)]);
    const watched = counting(kv);
    const measured = new DeliveryStore(watched.kv, { retain: 50 });
    await measured.add("h1", [item(400), item(401)]);
    // Storing reads nothing of the log (trimming goes in the background, a batch past the retention).
    assert.ok(watched.read() <= 4, `read ${watched.read()} entries`);
    await measured.flush(); // its rows counted; the first store holds the trimming lease, and trims
    await store.flush();
    assert.equal((await store.list({ limit: 100 })).length, 50);
    assert.equal(await count(kv, "console_delivery_body"), 50);
  } finally {
    kv.close();
  }
});

Deno.test("a lowered retention catches up a few deliveries per postback", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const wide = new DeliveryStore(kv, { retain: 100 });
    for (let n = 0; n < 20; n++) await wide.add("h1", [item(n)]);
    await wide.flush();
    // The wide console stopped: its trimming lease runs out (30 s; here at once), and the narrow one trims.
    await kv.delete(["console_delivery_trim_lease"]);
    const narrow = new DeliveryStore(kv, { retain: 5 });
    const added: number[] = [];
    for (let n = 0; n < 15; n++) added.push((await narrow.add("h1", [item(n)]))[0].seq);
    await narrow.flush();
    const left = await narrow.list({ limit: 100 });
    assert.deepEqual(left.map((d) => d.seq), added.slice(-5).reverse());
    assert.equal((await narrow.list({ hookId: "h1", limit: 100 })).length, 5);
  } finally {
    kv.close();
  }
});

Deno.test("a payload of characters beyond Latin-1 is cut to fit one KV value and stored", () =>
  withStore(async (store) => {
    const [view] = await store.add("h1", [item(1, { content: "€".repeat(40_000) })]);
    const stored = await store.get(view.id);
    assert.equal(stored?.truncated, true);
    assert.equal(stored?.payload.length, MAX_WIDE_PAYLOAD_CHARS);
  }));

Deno.test("a payload whose first character beyond Latin-1 comes after the plain cut is still cut to fit", () =>
  withStore(async (store) => {
    // A JavaScript string holding one wide character keeps two bytes for each, in its slices too.
    const [view] = await store.addPostback("late-wide", [{
      hookId: "h1",
      item: item(1, { content: "a".repeat(50_000) + "€" }),
    }]);
    const stored = await store.get(view.id);
    assert.equal(stored?.truncated, true);
    assert.equal(stored?.payload.length, MAX_WIDE_PAYLOAD_CHARS);
  }));

Deno.test("a postback of more items than the store takes is refused whole", () =>
  withStore(async (store) => {
    const entries = Array.from({ length: MAX_POSTBACK_ITEMS + 1 }, (_, n) => ({ hookId: "h", item: item(n) }));
    assert.throws(
      () => store.addPostback("p", entries),
      (err: Error) =>
        err instanceof RangeError &&
        err.message ===
          `Cannot store a postback of ${MAX_POSTBACK_ITEMS + 1} items: the limit is ${MAX_POSTBACK_ITEMS}`,
    );
    const most = await store.addPostback("q", entries.slice(0, MAX_POSTBACK_ITEMS));
    assert.equal(most.length, MAX_POSTBACK_ITEMS);
    assert.equal((await store.list({ limit: 1000 })).length, MAX_POSTBACK_ITEMS);
  }));
