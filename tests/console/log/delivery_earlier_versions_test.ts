// The delivery store reads what an earlier version wrote: request details per
// postback or in JSON batch entries, delivery bodies, and row objects (the
// receiver's rows are now JSON bytes).

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { item, receiverPostback, storeNumbered, withStore } from "./_delivery_store.ts";

Deno.test("request details and delivery bodies written by an earlier version are still read", () =>
  withStore(async (store, kv) => {
    const info = { headers: { "content-type": "application/json" }, tenantId: "t1", durationMs: 4 };
    await kv.set(["console_attempt", "P1"], info); // an object, as earlier versions wrote it
    assert.deepEqual(await store.attemptOf({ id: "", postbackId: "P1" }), info);
    await kv.set(["console_attempt", "P2"], "{not json");
    assert.equal(await store.attemptOf({ id: "", postbackId: "P2" }), null);
    await kv.set(["console_attempt", "P3"], JSON.stringify(info)); // JSON text, as the last version wrote it
    assert.deepEqual(await store.attemptOf({ id: "", postbackId: "P3" }), info);
    const [view] = await store.add("h1", [item(1)]);
    const whole = await store.get(view.id);
    assert.equal(whole?.id, view.id, "a row with its summary, as addPostback writes it");
    assert.equal(await store.get("q00000000z-0"), null, "no body, no delivery");
  }));

Deno.test("the receiver's rows are kept as JSON bytes with short payloads inline, and an earlier version's objects read the same", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 4 });
    const postback = (seq: number, title: string) =>
      receiverPostback(title, { postbackId: String(seq).repeat(64).slice(0, 64), index: 0, count: 1, seq });
    const op = kv.atomic();
    const long = "x".repeat(5000); // longer than a row keeps: its payload has an entry of its own
    store.write(postback(1, `plain ascii ${long}`), op);
    store.write(postback(2, `naïve café ☕ ${long}`), op); // beyond ASCII: that entry is the object
    store.write(postback(3, "short ☕"), op); // short: the payload is kept in its row
    assert.ok((await op.set(["console_delivery_seq"], 3).commit()).ok);
    // KV keeps bytes as they are: no V8 serialisation on the receiver's path.
    for (const seq of [1, 2, 3]) {
      assert.ok((await kv.get(["console_delivery_log", seq])).value instanceof Uint8Array);
      // No copy by hook in the postback's commit: the hook index packs the summaries later.
      assert.equal((await kv.get(["console_delivery_log_by_hook", "h1", seq])).value, null);
    }
    assert.ok((await kv.get(["console_delivery_body", "q000000001-0"])).value instanceof Uint8Array);
    assert.equal(typeof (await kv.get(["console_delivery_body", "q000000002-0"])).value, "object");
    assert.equal((await kv.get(["console_delivery_body", "q000000003-0"])).value, null, "two entries, not three");
    await store.index();
    const pack = (await kv.get<Uint8Array>(["console_delivery_hook_pack", "h1", 3])).value!;
    const lines = new TextDecoder().decode(pack).split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((view) => view.seq),
      [1, 2, 3],
      "the hook's pack holds the summaries alone, a line each",
    );
    assert.equal(lines[2].title, "short ☕");
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 3);

    // Number 4 as an earlier version wrote it: objects.
    const old = await store.get("q000000003-0");
    assert.ok(old);
    const { payload, truncated, ...summary } = { ...old, id: "q000000004-0", title: "written as objects" };
    const view = { seq: 4, ...summary };
    assert.ok(
      (await kv.atomic().set(["console_delivery_log", 4], view).set(["console_delivery_log_by_hook", "h1", 4], view)
        .set(["console_delivery_body", "q000000004-0"], { payload, truncated }).set(["console_delivery_seq"], 4)
        .commit()).ok,
    );

    const titles = [
      "written as objects",
      "short ☕",
      `naïve café ☕ ${long}`.slice(0, 300),
      `plain ascii ${long}`.slice(0, 300),
    ];
    assert.deepEqual((await store.list()).map((v) => v.title), titles);
    assert.deepEqual((await store.list({ hookId: "h1" })).map((v) => v.title), titles);
    assert.deepEqual((await store.list({ forward: true })).map((v) => v.seq), [1, 2, 3, 4]);
    assert.deepEqual((await store.page({})).values.map((v) => v.title), titles);
    const stats = await store.stats();
    assert.equal(stats.accepted, 4);
    assert.equal(stats.last?.title, "written as objects");
    for (
      const [id, title] of [["q000000001-0", `plain ascii ${long}`], ["q000000002-0", `naïve café ☕ ${long}`], [
        "q000000003-0",
        "short ☕",
      ]]
    ) {
      const whole = await store.get(id);
      assert.equal(whole?.id, id);
      assert.equal(whole?.truncated, false);
      assert.deepEqual(JSON.parse(whole!.payload).activity.title, title);
    }
    assert.equal((await store.get("q000000004-0"))?.title, "written as objects");
    // Ids that name a stored number but another postback's (q…2-1 is number 3) find nothing.
    assert.equal(await store.get("q000000002-1"), null);
    assert.equal(await store.get("q000000001-2"), null);
    // Found by text its payload alone holds, whichever entry keeps it, in the log and in a hook's copies (4 holds 3's).
    for (const filter of [{}, { hookId: "h1" }]) {
      assert.equal((await store.page({ ...filter, q: '"verb":"jive:created"' })).values.length, 4);
      assert.deepEqual((await store.page({ ...filter, q: '"title":"short' })).values.map((v) => v.seq), [4, 3]);
    }
    // Trimming reads both layouts: a fifth delivery pushes number 1 out, with its entries.
    await store.add("h2", [item(5)]);
    await store.flush();
    assert.equal(await store.get("q000000001-0"), null);
    assert.equal((await kv.get(["console_delivery_log_by_hook", "h1", 1])).value, null);
    assert.equal((await kv.get(["console_delivery_body", "q000000001-0"])).value, null);
  } finally {
    kv.close();
  }
});

Deno.test("request details batches: an earlier version's JSON entries are read, a corrupt entry is skipped", () =>
  withStore(async (store, kv) => {
    await storeNumbered(kv, store, 3, "j");
    const info = (n: number) => ({ headers: { "content-type": "application/json" }, tenantId: "t1", durationMs: n });
    // As the last version wrote them: JSON bytes of [first number, details] pairs.
    const json = new TextEncoder().encode(JSON.stringify([[1, info(1)], [2, info(2)]]));
    await kv.set(["console_attempt_batch", 1, 2], json);
    // A deflated entry whose bytes are not deflate: its details are not found, and nothing throws.
    await kv.set(["console_attempt_batch", 3, 3], new Uint8Array([0, 1, 2, 3, 4, 5]));
    const views = await store.list();
    const found = new Map<number, number | undefined>();
    for (const view of views) found.set(view.seq, (await store.attemptOf(view))?.durationMs);
    assert.deepEqual([...found].sort(), [[1, 1], [2, 2], [3, undefined]]);
    assert.equal((await store.stats()).handling?.count, 2);
  }));

Deno.test("request details an earlier version kept per postback number are still read", () =>
  withStore(async (store, kv) => {
    const op = kv.atomic();
    store.write(receiverPostback("old", { postbackId: "P".repeat(64), index: 0, count: 1, seq: 1 }), op);
    const info = { headers: { "content-type": "application/json" }, tenantId: "t1", durationMs: 7 };
    op.set(["console_attempt_at", 1], JSON.stringify(info)); // as the last version wrote it
    assert.ok((await op.set(["console_delivery_seq"], 1).commit()).ok);
    const [view] = await store.list();
    assert.deepEqual(await store.attemptOf(view), info);
    assert.equal((await store.stats()).handling?.p50, 7);
  }));
