// The live view's reader (issue 41): numbers are taken before their commit,
// by each process on its own clock, so a commit may land below a number a
// reader already saw. The reader reads the settle window again and gives
// each delivery once; below the window the log is read once.

import assert from "node:assert/strict";
import { DeliveryStore, type DeliveryView, LiveReader, numberAt } from "../../../console/log/mod.ts";
import { postback } from "../_postback.ts";

const titles = (views: DeliveryView[]) => views.map((view) => view.title);

Deno.test("a commit that lands late, below a number the reader saw, is still given, once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { settleMs: 5_000 });
    const reader = store.liveReader();
    await reader.start();
    const [a] = await store.add("h1", [{ activity: { title: "a" } }]);
    const [b] = await store.add("h1", [{ activity: { title: "b" } }]);
    assert.deepEqual(titles(await reader.next()), ["a", "b"]);
    // Another process's commit, numbered between a and b, lands now.
    const op = kv.atomic();
    store.write(postback("late", a.seq + 1), op);
    assert.ok((await op.commit()).ok);
    assert.ok(a.seq + 1 < b.seq);
    assert.deepEqual(titles(await reader.next()), ["late"], "the late one, and not a or b again");
    assert.deepEqual(await reader.next(), []);
    const [c] = await store.add("h1", [{ activity: { title: "c" } }]);
    assert.deepEqual(await reader.next().then((views) => views.map((view) => view.id)), [c.id]);
  } finally {
    kv.close();
  }
});

Deno.test("below the settle window the log is settled: a commit that lands there is not read again", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { settleMs: 1_000 });
    // A postback numbered a minute ago: far below the window.
    const old = numberAt(Date.now() - 60_000);
    const first = kv.atomic();
    store.write(postback("a", old), first);
    assert.ok((await first.commit()).ok);
    const reader = new LiveReader(kv, { settleMs: 1_000 });
    await reader.start();
    assert.deepEqual(await reader.next(), [], "what was there at the start is the page the reader shows");
    const op = kv.atomic();
    store.write(postback("too late", old - 1), op);
    assert.ok((await op.commit()).ok);
    assert.deepEqual(await reader.next(), []);
    const [b] = await store.add("h1", [{ activity: { title: "b" } }]);
    assert.deepEqual(titles(await reader.next()), ["b"]);
    assert.ok(b.seq > old);
  } finally {
    kv.close();
  }
});
