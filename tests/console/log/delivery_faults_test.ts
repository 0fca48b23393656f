// The delivery store under faults and races: a postback is stored whole or not
// at all and once, and the rows and writes of one KV handle reach another's
// reader and watch (issue 15, items 3 and 5).

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { faulty, withTwoHandles } from "../_kv_faults.ts";
import { count, item } from "./_delivery_store.ts";

Deno.test("a postback that fails half way leaves nothing, and its retry stores it whole once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // Large items: the payloads are written first, in several batches.
    const big = Array.from({ length: 40 }, (_, n) => item(n, { content: "x".repeat(40_000) }));
    const entries = big.map((item) => ({ hookId: "h1", item }));
    for (const failAt of [1, 2, 3]) {
      const broken = faulty(kv, new Set([failAt]));
      const store = new DeliveryStore(broken.kv);
      await assert.rejects(store.addPostback("p1", entries), /killed/);
      assert.equal((await new DeliveryStore(kv).list()).length, 0, `after a failure at commit ${failAt}`);
    }
    const store = new DeliveryStore(kv);
    const first = await store.addPostback("p1", entries);
    assert.equal(first.length, 40);
    const again = await store.addPostback("p1", entries);
    assert.deepEqual(again, first);
    assert.equal((await store.list({ limit: 100 })).length, 40);
    assert.equal(await count(kv, "console_delivery_body"), 40);
    assert.equal((await store.get(first[39].id))?.payload, JSON.stringify(big[39]));
  } finally {
    kv.close();
  }
});

Deno.test("a small postback that fails at its one commit leaves nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const broken = faulty(kv, new Set([1]));
    const entries = [1, 2, 3].map((n) => ({ hookId: "h1", item: item(n) }));
    await assert.rejects(new DeliveryStore(broken.kv).addPostback("p", entries), /killed/);
    assert.equal(broken.commits(), 1);
    assert.equal((await new DeliveryStore(kv).list()).length, 0);
    assert.equal(await count(kv, "console_delivery_body"), 0);
  } finally {
    kv.close();
  }
});

Deno.test("the same postback stored at once by two stores on one KV file is stored once", () =>
  withTwoHandles(async (a, b) => {
    const entries = [1, 2].map((n) => ({ hookId: "h1", item: item(n) }));
    const [x, y] = await Promise.all([
      new DeliveryStore(a).addPostback("same", entries),
      new DeliveryStore(b).addPostback("same", entries),
    ]);
    assert.deepEqual(x, y);
    assert.deepEqual((await new DeliveryStore(a).list()).map((d) => d.seq), x.map((d) => d.seq).reverse());
  }));

Deno.test("a live reader on another KV handle gets every row of two writers once, while they write", () =>
  withTwoHandles(async (a, b) => {
    const stores = [new DeliveryStore(a, { retain: 1000 }), new DeliveryStore(b, { retain: 1000 })];
    const reader = stores[1].liveReader();
    await reader.start();
    const seen: string[] = [];
    const writes = Promise.all(
      Array.from({ length: 60 }, (_, n) => stores[n % 2].add("h1", [item(n), item(n)])),
    );
    let done = false;
    writes.finally(() => done = true);
    for (;;) {
      const wasDone = done;
      seen.push(...(await reader.next()).map((view) => view.id));
      if (wasDone) break;
      await new Promise((r) => setTimeout(r, 1));
    }
    const stored = (await writes).flat();
    assert.equal(new Set(seen).size, seen.length, "none twice");
    assert.deepEqual(seen.sort(), stored.map((view) => view.id).sort());
    // The two writers hold different slots: no number taken twice.
    assert.equal(new Set(stored.map((view) => view.seq)).size, 120);
  }));

Deno.test("a watch on one KV handle reports another handle's writes within the poll interval", () =>
  withTwoHandles(async (a, b) => {
    const viewer = new DeliveryStore(a);
    const abort = new AbortController();
    let seen = 0;
    const watching = viewer.watch(abort.signal, async () => {
      seen = (await viewer.list()).length;
    }, 50);
    await new DeliveryStore(b).add("h1", [item(1)]);
    const deadline = Date.now() + 3000;
    while (seen < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    await watching;
    assert.equal(seen, 1);
  }));
