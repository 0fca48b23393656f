// Reading the delivery store: stats() per hour, page() by community and time
// range, a text search with bounded reads per page, and get() of ids that name
// nothing.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { item, withStore } from "./_delivery_store.ts";

Deno.test("stats() counts the last 24 hours per hour, accepted against rejected, and names the newest", () =>
  withStore(async (store) => {
    await store.add("h1", [item(1), item(2)]);
    await store.addRejected({
      status: 401,
      reason: "Bad signature",
      durationMs: 1,
      receivedAt: Date.now(),
      bodyExcerpt: "[]",
      headers: {},
    }, "h1");
    const stats = await store.stats("h1");
    assert.deepEqual([stats.accepted, stats.rejected, stats.capped], [2, 1, false]);
    assert.equal(stats.hours.length, 24);
    assert.deepEqual(stats.hours.at(-1), { start: stats.hours.at(-1)!.start, accepted: 2, rejected: 1 });
    assert.equal(stats.last?.reason, "Bad signature");
    // A day later, nothing falls in the window, and the newest is still named.
    const later = await store.stats("h1", Date.now() + 25 * 3_600_000);
    assert.deepEqual([later.accepted, later.rejected], [0, 0]);
    assert.equal(later.last?.status, 401);
    assert.equal((await store.stats("other")).last, null);
  }));

Deno.test("page() filters by community and by time range, and pages on without a gap", () =>
  withStore(async (store) => {
    await store.addPostback("a", [{ hookId: "h1", tenantId: "t1", item: item(1) }]);
    await store.addPostback("b", [{ hookId: "h2", tenantId: "t2", item: item(2) }]);
    await store.addPostback("c", [{ hookId: "h1", tenantId: "t1", item: item(3) }]);
    const byCommunity = await store.page({ tenantId: "t1" });
    assert.deepEqual(byCommunity.values.map((d) => d.title), ["item 3", "item 1"]);
    const now = Date.now();
    assert.equal((await store.page({ from: now + 60_000 })).values.length, 0, "nothing after now");
    assert.equal((await store.page({ to: now - 60_000 })).values.length, 0, "nothing before a minute ago");
    assert.equal((await store.page({ from: now - 60_000, to: now + 60_000 })).values.length, 3);
    const first = await store.page({ limit: 2 });
    assert.deepEqual(first.values.map((d) => d.title), ["item 3", "item 2"]);
    const rest = await store.page({ limit: 2, before: first.before });
    assert.deepEqual(rest.values.map((d) => d.title), ["item 1"]);
  }));

Deno.test("a text search reads a bounded number of payloads per page, and the cursor goes on from there", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 1000 });
    await store.addPostback("needle", [{ hookId: "h", item: item(0, { content: "the needle" }) }]);
    for (let n = 0; n < 5; n++) {
      await store.addPostback(`hay-${n}`, Array.from({ length: 100 }, (_, i) => ({ hookId: "h", item: item(i) })));
    }
    let pages = 0;
    let found: string[] = [];
    let before: number | undefined;
    do {
      const page = await store.page({ q: "needle", before });
      pages++;
      found = found.concat(page.values.map((d) => d.id));
      before = page.before;
    } while (before !== undefined && pages < 10);
    assert.equal(found.length, 1, "the one match is found");
    assert.ok(pages >= 2, `the 500 payloads were read over ${pages} pages`);
  } finally {
    kv.close();
  }
});

Deno.test("get() of ids shaped like the receiver's but naming nothing finds nothing and never throws", () =>
  withStore(async (store) => {
    const odd = [
      "q-0",
      "q000000001-",
      `q${"z".repeat(150)}-1`,
      "q1-99999999999999999999999",
      "q0000000001-0x",
      "Q000000001-0",
      "q000000001-1e3",
      "q00000000.5-0",
    ];
    for (const id of odd) assert.equal(await store.get(id), null, id);
  }));
