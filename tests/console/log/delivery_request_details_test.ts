// The request details of stored postbacks: kept by number in shared batch
// entries that ride the receiver's group commit, found again from memory or
// KV, whatever the headers, and kept through trimming.

import assert from "node:assert/strict";
import fc from "fast-check";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { onCommit } from "../_kv_faults.ts";
import { commitInGroup } from "../../../webhooks/mod.ts";
import { count, delivered, item, receiverPostback, storeNumbered, withStore } from "./_delivery_store.ts";

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
    // Both are in line once this turn's microtasks have run, however slow the machine: the three postbacks were
    // submitted above, and the flush packs the details (one part: no yield between parts) and submits them in
    // microtasks, before any timer. The 20 ms leave room; a details job submitted after the first commit
    // settled makes a third commit, which fails the check below.
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
