// The delivery store under faults, races and a long history: a postback is
// stored whole or not at all and once, the sequence is commit order across
// KV handles, and storing costs the same at any history size (issue 15,
// items 3, 5 and 9).

import assert from "node:assert/strict";
import fc from "fast-check";
import { DeliveryStore, MAX_POSTBACK_ITEMS, MAX_WIDE_PAYLOAD_CHARS } from "../../../console/log/mod.ts";
import { counting, faulty, onCommit, withTwoHandles } from "../_kv_faults.ts";
import { commitInGroup } from "../../../webhooks/mod.ts";

const item = (n: number, extra: Record<string, unknown> = {}) => ({
  webhook: "https://jive.example/api/core/v3/webhooks/1",
  activity: { verb: "jive:created", title: `item ${n}`, ...extra },
});

/** The hook the receiver's postbacks below name. */
const HOOK = { id: "h1", tenantId: "t1", entity: { resources: { self: { ref: "https://c.example/w/1" } } } };

/** An item of a postback as the receiver hands it to `write`: API.md's four fields and the extras. */
function receiverPostback(
  title: string,
  at: { postbackId: string; index: number; count: number; seq: number; receivedAt?: number },
): Parameters<DeliveryStore["write"]>[0] {
  const { receivedAt = Date.now(), ...extras } = at;
  return Object.assign(
    { activity: { verb: "jive:created", title }, webhook: HOOK, community: {}, receivedAt },
    extras,
  ) as unknown as Parameters<DeliveryStore["write"]>[0];
}

/** Stores `n` one-item postbacks numbered 1 to `n` as the receiver's `write` does, postback ids `{tag}{seq}-0…`. */
async function storeNumbered(kv: Deno.Kv, store: DeliveryStore, n: number, tag: string): Promise<void> {
  const op = kv.atomic();
  for (let seq = 1; seq <= n; seq++) {
    const postbackId = `${tag}${seq}-`.padEnd(64, "0");
    store.write(receiverPostback(`${tag}${seq}`, { postbackId, index: 0, count: 1, seq }), op);
  }
  assert.ok((await op.set(["console_delivery_seq"], n).commit()).ok);
}

/** The receiver's report of a postback it stored, as the console records it. */
function delivered(postbackId: string, durationMs: number, headers: Record<string, string> = {}) {
  return { postbackId, status: 200, reason: "Delivered", durationMs, receivedAt: 0, bodyExcerpt: "", headers };
}

/** Runs `fn` with a store over a fresh in-memory KV, closed after. */
async function withStore(fn: (store: DeliveryStore, kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new DeliveryStore(kv), kv);
  } finally {
    kv.close();
  }
}

async function count(kv: Deno.Kv, prefix: string): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [prefix] })) n++;
  return n;
}

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

Deno.test("trimming a refused row that names a postback keeps the stored postback's request details", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 2 });
    const base = { durationMs: 1, receivedAt: Date.now(), bodyExcerpt: "", headers: {}, postbackId: "P" };
    // A copy answered duplicate while the first was still being handled, logged before the postback itself.
    await store.addRejected({ ...base, status: 200, duplicate: true, reason: "Duplicate" }, "h1");
    await store.addPostback("P", [{ hookId: "h1", item: item(1) }]);
    await store.recordAttempt({ ...base, status: 200, reason: "Delivered" });
    await store.flush();
    assert.notEqual(await store.attemptOf({ id: "", postbackId: "P" }), null);
    await store.add("h2", [item(2)]); // trims the duplicate's row, the oldest
    await store.flush();
    assert.deepEqual((await store.list({ limit: 10 })).map((view) => view.reason ?? "accepted"), [
      "accepted",
      "accepted",
    ]);
    assert.notEqual(
      await store.attemptOf({ id: "", postbackId: "P" }),
      null,
      "the postback still listed keeps its details",
    );
    await store.add("h2", [item(3)]); // now the postback's own row goes, and its details with it
    await store.flush();
    assert.equal(await store.attemptOf({ id: "", postbackId: "P" }), null);
  } finally {
    kv.close();
  }
});

Deno.test("request details recorded while a batch of them is written go in the next batch, and flush writes it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let during: (() => void) | null = null;
    const wrapped = onCommit(kv, () => {
      const hook = during;
      during = null;
      hook?.();
    });
    const store = new DeliveryStore(wrapped);
    const attempt = (postbackId: string) => delivered(postbackId, 1);
    let second: Promise<void> | undefined;
    during = () => second = store.recordAttempt(attempt("b")); // as the batch holding "a" commits
    await store.recordAttempt(attempt("a"));
    assert.ok(second, "b was recorded while a's batch was written");
    await store.flush();
    await second;
    assert.notEqual(await store.attemptOf({ id: "", postbackId: "a" }), null);
    assert.notEqual(await store.attemptOf({ id: "", postbackId: "b" }), null);
  } finally {
    kv.close();
  }
});

Deno.test("a postback stored by the receiver's write keeps its request details by its first number, trimmed with it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 1 });
    const postback = (index: number) =>
      receiverPostback(`Item ${index}`, { postbackId: "P".repeat(64), index, count: 2, seq: 1 + index, receivedAt: 0 });
    const op = kv.atomic();
    store.write(postback(0), op);
    store.write(postback(1), op);
    assert.ok((await op.set(["console_delivery_seq"], 2).commit()).ok);
    await store.recordAttempt(
      delivered("P".repeat(64), 3),
      1,
    );
    await store.flush();
    const views = await store.list({ forward: true });
    assert.deepEqual(views.map((view) => view.id), ["q000000001-0", "q000000001-1"]);
    for (const view of views) assert.equal((await store.attemptOf(view))?.durationMs, 3);
    await store.add("h2", [item(3)]); // trims both rows of the postback, and its details with them
    await store.flush();
    assert.deepEqual((await store.list()).map((view) => view.hookId), ["h2"]);
    assert.equal(await store.attemptOf(views[0]), null);
  } finally {
    kv.close();
  }
});

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

Deno.test("request details of the receiver's postbacks share batch entries, found by number, late ones too", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 1000 });
    await storeNumbered(kv, store, 150, "n");
    const attempt = (seq: number, headers: Record<string, string> = { "user-agent": "x".repeat(400) }) =>
      delivered(`n${seq}-`.padEnd(64, "0"), seq, headers);
    // 1 to 139 in one batch; 140 to 150 in the next, with 5 reported late (after 140 to 150) and one with
    // more headers than one entry holds.
    for (let seq = 1; seq <= 139; seq++) if (seq !== 5) void store.recordAttempt(attempt(seq), seq);
    await store.flush();
    for (let seq = 140; seq <= 150; seq++) void store.recordAttempt(attempt(seq), seq);
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, "v".repeat(500)]));
    void store.recordAttempt(attempt(5, many), 5);
    await store.flush();
    const entries: Deno.KvEntry<unknown>[] = [];
    for await (const e of kv.list({ prefix: ["console_attempt_batch"] })) entries.push(e);
    assert.ok(entries.length > 1 && entries.length < 20, `${entries.length} entries for 150 postbacks`);
    assert.ok(entries.every((e) => e.value instanceof Uint8Array && e.value.byteLength < 64 * 1024));
    // Deflated (first byte 0), and below SQLite's overflow threshold unless an entry holds one postback's alone.
    for (const e of entries) {
      const [, low, high] = e.key as [string, number, number];
      assert.equal((e.value as Uint8Array)[0], 0, `entry ${low}-${high} is deflated`);
      assert.ok(low === high || (e.value as Uint8Array).byteLength <= 900, `entry ${low}-${high} fits a page`);
    }
    const views = await store.list({ limit: 150 });
    for (const view of views) {
      const info = await store.attemptOf(view);
      assert.equal(info?.durationMs, view.seq, `details of ${view.id}`);
      if (view.seq === 5) assert.deepEqual(info?.headers, {}, "headers past an entry's room are left out");
      else assert.equal(info?.headers["user-agent"], "x".repeat(400));
    }
    const stats = await store.stats();
    assert.equal(stats.handling?.count, 150);
    assert.equal(stats.handling?.p50, 75);
  } finally {
    kv.close();
  }
});

Deno.test("request details reported out of order, one twice, are each found, the later report winning", () =>
  withStore(async (store, kv) => {
    await storeNumbered(kv, store, 4, "o");
    const id = (seq: number) => `o${seq}-`.padEnd(64, "0");
    // One batch: 3, 1, 4, 2, then 1 again (a later report of it), so the batch is neither in order nor unique.
    for (const [seq, ms] of [[3, 3], [1, 1], [4, 4], [2, 2], [1, 11]]) {
      void store.recordAttempt(delivered(id(seq), ms), seq);
    }
    await store.flush();
    const found = new Map<number, number | undefined>();
    for (const view of await store.list({ limit: 10 })) found.set(view.seq, (await store.attemptOf(view))?.durationMs);
    assert.deepEqual([...found].sort((a, b) => a[0] - b[0]), [[1, 11], [2, 2], [3, 3], [4, 4]]);
  }));

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

Deno.test("request details that do not deflate still go in entries KV takes, and are all found", () =>
  withStore(async (store, kv) => {
    await storeNumbered(kv, store, 40, "r");
    // Random header values (hex of random bytes) deflate poorly: 2 KB of them a postback.
    const random = () => crypto.getRandomValues(new Uint8Array(1000)).toHex();
    for (let seq = 1; seq <= 40; seq++) {
      void store.recordAttempt(delivered(`r${seq}-`.padEnd(64, "0"), seq, { "x-random": random() }), seq);
    }
    await store.flush();
    const entries: Deno.KvEntry<Uint8Array>[] = [];
    for await (const e of kv.list<Uint8Array>({ prefix: ["console_attempt_batch"] })) entries.push(e);
    assert.ok(entries.length >= 40 / 2, `${entries.length} entries: no more than two postbacks' in 900 bytes`);
    assert.ok(entries.every((e) => e.value.byteLength < 64 * 1024));
    // The first run is cut for details that deflate well (a guess), so its parts come out too large: halved.
    for (const { key, value } of entries) {
      const [, low, high] = key as [string, number, number];
      assert.ok(low === high || value.byteLength <= 900, `entry ${low}-${high}: ${value.byteLength} bytes`);
    }
    for (const view of await store.list({ limit: 40 })) {
      assert.equal((await store.attemptOf(view))?.durationMs, view.seq, `details of ${view.id}`);
    }
  }));

Deno.test("request details ride in the receiver's group commit, not in a commit of their own", async () => {
  const base = await Deno.openKv(":memory:");
  try {
    let commits = 0;
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const kv = onCommit(base, async (n) => {
      commits = n;
      if (n === 1) start(), await held;
    });
    const store = new DeliveryStore(kv);
    // A postback's commit is on its way; what comes meanwhile waits for the next group, details too.
    const postback = (i: number) => commitInGroup(kv, { checks: [], build: (atomic) => atomic.set(["p", i], i) });
    const first = postback(0);
    await started;
    for (let seq = 1; seq <= 30; seq++) {
      void store.recordAttempt(delivered(`g${seq}-`.padEnd(64, "0"), seq, { "user-agent": "load" }), seq);
    }
    const flushed = store.flush();
    const others = [1, 2, 3].map(postback);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([first, flushed, ...others]);
    assert.equal(commits, 2, "the details and three postbacks share the second commit");
    assert.ok(await count(base, "console_attempt_batch") > 0, "the details are in KV");
    assert.equal(await count(base, "p"), 4);
  } finally {
    base.close();
  }
});

Deno.test("request details of any headers a client sends are kept whole and found again (property)", async () => {
  // Headers come from outside: any names and values, any characters, repeated or not, few or many postbacks.
  const header = fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ unit: "binary", maxLength: 300 }));
  const details = fc.array(fc.array(header, { maxLength: 8 }), { minLength: 1, maxLength: 80 });
  await fc.assert(
    fc.asyncProperty(details, (sent) =>
      withStore(async (store, kv) => {
        await storeNumbered(kv, store, sent.length, "f");
        for (const [i, pairs] of sent.entries()) {
          void store.recordAttempt(delivered(`f${i + 1}-`.padEnd(64, "0"), i + 1, Object.fromEntries(pairs)), i + 1);
        }
        await store.flush();
        for await (const e of kv.list<Uint8Array>({ prefix: ["console_attempt_batch"] })) {
          assert.ok(e.value.byteLength < 64 * 1024);
        }
        for (const view of await store.list({ limit: 200 })) {
          const info = await store.attemptOf(view);
          assert.equal(info?.durationMs, view.seq);
          assert.deepEqual(info?.headers, Object.fromEntries(sent[view.seq - 1]));
        }
      })),
    // Each run stores a KV's worth: a failure is reported as found, not shrunk for minutes.
    { numRuns: 40, endOnFailure: true },
  );
});

Deno.test("request details are found at once, from memory, until their batch is in KV", () =>
  withStore(async (store, kv) => {
    await storeNumbered(kv, store, 1, "m");
    const attempt = (postbackId: string, durationMs: number) =>
      delivered(postbackId, durationMs, { "user-agent": "platform" });
    const [view] = await store.list();
    void store.recordAttempt(attempt("m1-".padEnd(64, "0"), 6), view.seq);
    // Reported again for the same number in the same batch: the later report is the one kept.
    const numbered = store.recordAttempt(attempt("m1-".padEnd(64, "0"), 7), view.seq);
    const keyed = store.recordAttempt(attempt("K".repeat(64), 8)); // a postback without numbers (onPostback mode)
    assert.equal(await count(kv, "console_attempt_batch"), 0, "the batch waits for its time");
    assert.equal((await store.attemptOf(view))?.durationMs, 7);
    assert.equal((await store.attemptOf({ id: "", postbackId: "K".repeat(64) }))?.durationMs, 8);
    await Promise.all([numbered, keyed]);
    assert.equal(await count(kv, "console_attempt_batch"), 1);
    const another = new DeliveryStore(kv); // another process's store: KV only
    assert.equal((await another.attemptOf(view))?.durationMs, 7, "then from KV");
    assert.equal((await another.attemptOf({ id: "", postbackId: "K".repeat(64) }))?.durationMs, 8);
  }));

Deno.test("request details with more headers than one entry holds keep the rest, numbered or keyed", () =>
  withStore(async (store, kv) => {
    await storeNumbered(kv, store, 1, "w");
    // 300 headers of 500 characters: past what one KV value holds as JSON.
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`x-h${i}`, "v".repeat(500)]));
    const [view] = await store.list();
    await Promise.all([
      store.recordAttempt(delivered("K".repeat(64), 4, many)), // a postback without numbers (onPostback mode)
      store.recordAttempt(delivered("w1-".padEnd(64, "0"), 5, many), view.seq),
    ]);
    const another = new DeliveryStore(kv); // KV only
    const keyed = await another.attemptOf({ id: "", postbackId: "K".repeat(64) });
    assert.equal(keyed?.durationMs, 4);
    assert.deepEqual(keyed?.headers, {});
    const numbered = await another.attemptOf(view);
    assert.equal(numbered?.durationMs, 5);
    assert.deepEqual(numbered?.headers, {});
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
