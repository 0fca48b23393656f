// The hook index's pass (issue 23): it follows the receiver's writes a batch
// at a time, packs rows other processes stored, keeps its mark below the
// settle window, writes each summary once, stays within KV's limits, ends
// under a steady flow, and reads its own rows from memory.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";
import { keys, postback, seqs, store } from "./_hook_index.ts";

/** The receiver's report of the one-item postback numbered `seq`, recorded as the console does once it is stored. */
function stored(deliveries: DeliveryStore, seq: number): void {
  const attempt = {
    postbackId: `p${seq}-`.padEnd(64, "0"),
    status: 200,
    reason: "Delivered",
    durationMs: 1,
    itemCount: 1,
  };
  deliveries.recordAttempt({ ...attempt, receivedAt: 0, bodyExcerpt: "", headers: {} }, seq).catch(() => {});
}

Deno.test("the index follows the receiver's writes once a batch of them is counted, a pack per hook", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv, { retain: 10_000 });
    const hooks = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? "a" : "b"));
    await store(kv, deliveries, hooks.slice(0, 100));
    for (let seq = 1; seq <= 100; seq++) stored(deliveries, seq);
    await deliveries.flush();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, null, "100 rows: not yet a batch");
    await store(kv, deliveries, hooks.slice(100), 101);
    for (let seq = 101; seq <= 300; seq++) stored(deliveries, seq);
    await deliveries.flush();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 300);
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), [
      ["console_delivery_hook_pack", "a", 298],
      ["console_delivery_hook_pack", "b", 300],
    ]);
    assert.deepEqual(await keys(kv, "console_delivery_log_by_hook"), [], "no copy per delivery");
    assert.equal((await deliveries.list({ hookId: "a", limit: 200 })).length, 100);
  } finally {
    kv.close();
  }
});

Deno.test("rows another process stored are packed by the pass this process's writes start", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv, { retain: 10_000 });
    // Another process's 400 rows: not counted here.
    await store(kv, deliveries, Array.from({ length: 400 }, () => "a"));
    await deliveries.flush();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, null, "nothing counted here: no pass");
    await store(kv, deliveries, Array.from({ length: 300 }, () => "b"), 401);
    for (let seq = 401; seq <= 700; seq++) stored(deliveries, seq);
    await deliveries.flush();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 700);
    assert.equal((await deliveries.list({ hookId: "a", limit: 1000 })).length, 400);
  } finally {
    kv.close();
  }
});

Deno.test("the mark stays below the settle window: a commit that lands late below a number seen is still packed", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv, { retain: 10_000, settleMs: 60_000 });
    // Numbered as this process numbers them (now): inside the settle window, not packed yet.
    const views = [...await deliveries.add("a", [{}]), ...await deliveries.add("a", [{}])];
    await deliveries.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, null, "nothing settled yet");
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), []);
    // Another process's commit lands late, below the numbers already written.
    const late = views[0].seq - 1;
    const op = kv.atomic();
    deliveries.write(postback("late", late), op);
    assert.ok((await op.commit()).ok);
    // Once settled (here: a window of 0), all three are packed, the late one too.
    const settled = new DeliveryStore(kv, { retain: 10_000, settleMs: 0 });
    await new Promise((r) => setTimeout(r, 5));
    await settled.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, views[1].seq);
    assert.deepEqual(seqs(await settled.list({ hookId: "late" })), [late]);
    assert.deepEqual(seqs(await settled.list({ hookId: "a" })), [views[1].seq, views[0].seq]);
    assert.equal((await keys(kv, "console_delivery_hook_pack")).length, 2);
  } finally {
    kv.close();
  }
});

Deno.test("two stores indexing one KV file at once write each summary once", () =>
  withTwoHandles(async (a, b) => {
    const [x, y] = [new DeliveryStore(a, { retain: 10_000 }), new DeliveryStore(b, { retain: 10_000 })];
    const hooks = Array.from({ length: 700 }, (_, i) => `h${i % 5}`);
    await store(a, x, hooks);
    await Promise.all([x.index(), y.index(), x.index(), y.index()]);
    const lines: number[] = [];
    for await (const entry of a.list<Uint8Array>({ prefix: ["console_delivery_hook_pack"] })) {
      lines.push(...new TextDecoder().decode(entry.value).split("\n").map((line) => JSON.parse(line).seq));
    }
    assert.deepEqual(lines.sort((p, q) => p - q), hooks.map((_, i) => i + 1));
    for (let h = 0; h < 5; h++) assert.equal((await y.list({ hookId: `h${h}`, limit: 1000 })).length, 140);
  }));

Deno.test("a pass writes at most 900 packs (KV takes 1,000 mutations), and the next goes on", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const now = Date.now();
    // An earlier version's log: 1,000 rows of hook a a minute and more apart (a pack each), then 1,200 of hook b.
    for (let from = 1; from <= 2200; from += 200) {
      const op = kv.atomic();
      for (let seq = from; seq < from + 200; seq++) {
        const at = seq <= 1000 ? now - (2200 - seq) * 61_000 : now - (2200 - seq) * 1000;
        op.set(["console_delivery_log", seq], {
          seq,
          id: `old${seq}-0`,
          hookId: seq <= 1000 ? "a" : "b",
          receivedAt: new Date(at).toISOString(),
          verb: "jive:created",
          title: `t${seq}`,
          webhook: "",
          status: 200,
        });
      }
      assert.ok((await op.commit()).ok);
    }
    await kv.set(["console_delivery_seq"], 2200);
    const deliveries = new DeliveryStore(kv, { retain: 10_000 });
    await deliveries.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 2200);
    assert.equal((await keys(kv, "console_delivery_hook_pack")).filter((key) => key[1] === "a").length, 1000);
    assert.equal((await deliveries.list({ hookId: "a", limit: 2000 })).length, 1000);
    assert.equal((await deliveries.list({ hookId: "b", limit: 2000 })).length, 1200);
  } finally {
    kv.close();
  }
});

Deno.test("under a steady flow of postbacks a pass takes what is there and ends: packs hold a batch, not a group", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv, { retain: 100_000 });
    let seq = 0;
    // 2,000 postbacks to 5 hooks, in groups of 8, each reported stored as the receiver does.
    for (let group = 0; group < 250; group++) {
      const op = kv.atomic();
      const first = seq + 1;
      for (let i = 0; i < 8; i++) deliveries.write(postback(`h${++seq % 5}`, seq), op);
      assert.ok((await op.set(["console_delivery_seq"], seq).commit()).ok);
      for (let n = first; n <= seq; n++) stored(deliveries, n);
    }
    const during = deliveries.index(); // asked while postbacks still come: it ends with what is there
    for (let n = 0; n < 20; n++) {
      const op = kv.atomic();
      deliveries.write(postback("h0", ++seq), op);
      assert.ok((await op.set(["console_delivery_seq"], seq).commit()).ok);
      stored(deliveries, seq);
    }
    await during;
    await deliveries.flush();
    const packs = (await keys(kv, "console_delivery_hook_pack")).length;
    assert.ok(packs <= 5 * Math.ceil(2020 / 256) + 5, `${packs} packs for 2,020 deliveries to 5 hooks`);
    for (let h = 0; h < 5; h++) {
      assert.equal((await deliveries.list({ hookId: `h${h}`, limit: 3000 })).length, h ? 400 : 420);
    }
  } finally {
    kv.close();
  }
});

function rangedReads(kv: Deno.Kv): { kv: Deno.Kv; read: () => number } {
  let read = 0;
  const list = kv.list.bind(kv);
  kv.list = <T>(selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    const ranged = "start" in selector && "end" in selector && selector.start[0] === "console_delivery_log";
    const iterator = list<T>(selector, options);
    if (!ranged) return iterator;
    const next = iterator.next.bind(iterator);
    iterator.next = async () => {
      const step = await next();
      if (!step.done) read++;
      return step;
    };
    return iterator;
  };
  return { kv, read: () => read };
}

Deno.test("a process alone packs its own rows from memory; once another numbers there too, the log is read", () =>
  withTwoHandles(async (a, b) => {
    const counted = rangedReads(a);
    const mine = new DeliveryStore(counted.kv, { retain: 10_000, settleMs: 0 });
    // Fewer rows than a batch: no pass starts while they are written (with a settle window of 0, a pass could
    // pass a number taken but not yet committed).
    for (let i = 0; i < 25; i++) await mine.add("a", Array.from({ length: 10 }, () => ({})));
    await mine.flush();
    await new Promise((r) => setTimeout(r, 5));
    await mine.index();
    const first = await mine.list({ hookId: "a", limit: 1000 });
    assert.equal((await a.get(["console_delivery_hook_mark"])).value, first[0].seq);
    assert.equal(first.length, 250);
    assert.equal(counted.read(), 0, "no row read back: all were this process's");
    // Another process (a writer slot of its own) stores rows among this one's: read from the log, all packed.
    const theirs = new DeliveryStore(b, { retain: 10_000, settleMs: 0 });
    for (let i = 0; i < 20; i++) {
      await Promise.all([mine.add("a", Array.from({ length: 10 }, () => ({}))), theirs.add("b", [{}])]);
    }
    await Promise.all([mine.flush(), theirs.flush()]);
    await new Promise((r) => setTimeout(r, 5));
    await mine.index();
    assert.equal(counted.read(), 220, "every row of the stretch read back");
    assert.equal((await a.get(["console_delivery_hook_mark"])).value, (await mine.list({ limit: 1 }))[0].seq);
    assert.equal((await mine.list({ hookId: "a", limit: 1000 })).length, 450);
    assert.equal((await mine.list({ hookId: "b", limit: 1000 })).length, 20);
    // Theirs are packed (a pack is keyed by its last number), not read from the log's tail.
    const newestOfTheirs = (await theirs.list({ hookId: "b", limit: 1 }))[0].seq;
    assert.deepEqual(await keys(a, "console_delivery_hook_pack").then((all) => all.filter((key) => key[1] === "b")), [
      ["console_delivery_hook_pack", "b", newestOfTheirs],
    ]);
  }));
