// The delivery log by hook, kept off the receiver's path: a postback's commit
// writes the log's rows alone, the hook index packs their summaries later,
// and the readers (list, page, stats) take the packs up to the index's mark
// and the log's rows above it, so a hook's listing is whole and in order
// whatever the mark (issue 23).

import assert from "node:assert/strict";
import fc from "fast-check";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { commitInGroup } from "../../../webhooks/mod.ts";
import type { DeliveryView } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";

type Written = Parameters<DeliveryStore["write"]>[0];

/** The receiver's item number `seq`, to hook `hookId`, a one-item postback. */
function postback(hookId: string, seq: number, receivedAt = Date.now()): Written {
  return {
    activity: { verb: "jive:created", title: `${hookId} ${seq}` },
    webhook: { id: hookId, tenantId: "t1", entity: { resources: { self: { ref: `https://c.example/w/${hookId}` } } } },
    community: {},
    receivedAt,
    postbackId: `p${seq}-`.padEnd(64, "0"),
    index: 0,
    count: 1,
    seq,
  } as unknown as Written;
}

/** Stores one delivery per hook of `hooks`, numbered from `from`, in one commit as the receiver does. */
async function store(kv: Deno.Kv, deliveries: DeliveryStore, hooks: string[], from = 1): Promise<void> {
  // In commits of up to 300 rows: each row is a set and a sum of its written shard, within KV's 1,000 mutations.
  for (let start = 0; start < hooks.length; start += 300) {
    const op = kv.atomic();
    hooks.slice(start, start + 300).forEach((hookId, i) => deliveries.write(postback(hookId, from + start + i), op));
    const last = from + Math.min(hooks.length, start + 300) - 1;
    assert.ok((await op.set(["console_delivery_seq"], last).commit()).ok);
  }
}

async function keys(kv: Deno.Kv, prefix: string): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: [prefix] })) out.push(entry.key);
  return out;
}

const seqs = (views: DeliveryView[]) => views.map((view) => view.seq);

Deno.test("a hook's listing is whole and in order whatever part of the log the index holds (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 60 }),
      fc.nat(),
      fc.nat(),
      fc.integer({ min: 1, max: 8 }),
      async (hooks, markAt, cursorAt, limit) => {
        const kv = await Deno.openKv(":memory:");
        try {
          const deliveries = new DeliveryStore(kv, { retain: 1000 });
          const mark = markAt % (hooks.length + 1);
          // Indexed up to `mark`, the rest in the log alone.
          if (mark > 0) await store(kv, deliveries, hooks.slice(0, mark));
          await deliveries.index();
          if (mark < hooks.length) await store(kv, deliveries, hooks.slice(mark), mark + 1);
          assert.equal((await kv.get(["console_delivery_hook_mark"])).value, mark > 0 ? mark : null);
          for (const hookId of ["a", "b", "c"]) {
            const all = hooks.flatMap((h, i) => h === hookId ? [i + 1] : []);
            const newest = [...all].reverse();
            assert.deepEqual(seqs(await deliveries.list({ hookId, limit: 100 })), newest);
            assert.deepEqual(seqs(await deliveries.list({ hookId, limit })), newest.slice(0, limit));
            const cursor = cursorAt % (hooks.length + 2);
            assert.deepEqual(
              seqs(await deliveries.list({ hookId, after: cursor, forward: true, limit })),
              all.filter((seq) => seq > cursor).slice(0, limit),
            );
            const older = await deliveries.page({ hookId, before: cursor, limit });
            assert.deepEqual(seqs(older.values), newest.filter((seq) => seq < cursor).slice(0, limit));
            const newer = await deliveries.page({ hookId, after: cursor, limit });
            assert.deepEqual(seqs(newer.values), all.filter((seq) => seq > cursor).slice(0, limit).reverse());
            const stats = await deliveries.stats(hookId);
            assert.equal(stats.accepted, all.length);
            assert.equal(stats.last?.seq, newest[0]);
          }
        } finally {
          kv.close();
        }
      },
    ),
    { numRuns: 60 },
  );
});

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

Deno.test("trimming deletes the packs below the retention; the one across it lists only what the log keeps", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv, { retain: 10 });
    await store(kv, deliveries, ["a", "b", "a", "b", "a", "b"]);
    await deliveries.index();
    await store(kv, deliveries, ["a", "a", "a", "a"], 7);
    await deliveries.index();
    // New postbacks push the oldest out (trimmed behind them): 1 and 2, then 3 to 6.
    const [v11] = await deliveries.add("b", [{}]);
    const [v12] = await deliveries.add("b", [{}]);
    await deliveries.flush();
    const [n11, n12] = [v11.seq, v12.seq];
    assert.deepEqual(seqs(await deliveries.list({ limit: 100 })), [n12, n11, 10, 9, 8, 7, 6, 5, 4, 3]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a", limit: 100 })), [10, 9, 8, 7, 5, 3]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "b", limit: 100 })), [n12, n11, 6, 4]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a", after: 0, forward: true })), [3, 5, 7, 8, 9, 10]);
    assert.deepEqual(seqs((await deliveries.page({ hookId: "b", before: 5 })).values), [4]);
    assert.equal((await deliveries.stats("a")).accepted, 6);
    for (let i = 0; i < 4; i++) await deliveries.add("c", [{}]);
    await deliveries.flush();
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a", limit: 100 })), [10, 9, 8, 7]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "b", limit: 100 })), [n12, n11]);
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), [["console_delivery_hook_pack", "a", 10]]);
  } finally {
    kv.close();
  }
});

Deno.test("a log an earlier version wrote (a copy per delivery, no mark) is listed by hook, and indexed at start", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const view = (seq: number, hookId: string) => ({
      seq,
      id: `old${seq}-0`,
      hookId,
      receivedAt: new Date().toISOString(),
      verb: "jive:created",
      title: `old ${seq}`,
      webhook: "",
      status: 200,
    });
    const op = kv.atomic();
    for (let seq = 1; seq <= 5; seq++) {
      const v = view(seq, seq % 2 ? "a" : "b");
      op.set(["console_delivery_log", seq], v).set(["console_delivery_log_by_hook", v.hookId, seq], v);
    }
    assert.ok((await op.set(["console_delivery_seq"], 5).commit()).ok);
    const deliveries = new DeliveryStore(kv);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [5, 3, 1]);
    await deliveries.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 5);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [5, 3, 1]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "b", after: 2, forward: true })), [4]);
  } finally {
    kv.close();
  }
});

Deno.test("an index pass killed at its commit leaves the mark and the packs as they were; the next pass writes them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv);
    await store(kv, deliveries, ["a", "b", "a"]);
    // A KV whose commits fail, as a process killed at that moment would leave it.
    const broken = new Proxy(kv, {
      get(target, name) {
        if (name !== "atomic") return Reflect.get(target, name).bind(target);
        return () => {
          const op = target.atomic();
          op.commit = () => Promise.reject(new Error("killed"));
          return op;
        };
      },
    });
    await assert.rejects(new DeliveryStore(broken).index(), /killed/);
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, null);
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), []);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [3, 1]);
    await deliveries.index();
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), [
      ["console_delivery_hook_pack", "a", 3],
      ["console_delivery_hook_pack", "b", 2],
    ]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [3, 1]);
  } finally {
    kv.close();
  }
});

/** The receiver's report of postback `name` (one item), stored at `first`. */
function storedAt(deliveries: DeliveryStore, name: string, first: number): Promise<void> {
  const postbackId = `${name}-`.padEnd(64, "0");
  const attempt = { postbackId, status: 200, reason: "Delivered", durationMs: 1, itemCount: 1 };
  return deliveries.recordAttempt({ ...attempt, receivedAt: 0, bodyExcerpt: "", headers: {} }, first);
}

/** A one-item postback `name` to `hookId`, written by the receiver's group commit (built at whatever number it gets). */
function groupWrite(
  kv: Deno.Kv,
  deliveries: DeliveryStore,
  hookId: string,
  name: string,
  checks: Deno.AtomicCheck[] = [],
) {
  return commitInGroup(kv, {
    checks,
    sequence: ["console_delivery_seq"],
    count: 1,
    build: (atomic, first) => {
      const item = postback(hookId, first);
      Object.assign(item, { postbackId: `${name}-`.padEnd(64, "0") });
      deliveries.write(item, atomic);
    },
  });
}

Deno.test("a postback built again at another number after its group failed is packed at the number it was stored at only", () =>
  withTwoHandles(async (kv, other) => {
    const [mine, theirs] = [new DeliveryStore(kv, { retain: 10_000 }), new DeliveryStore(other, { retain: 10_000 })];
    // A's own check fails at the group's commit (its record was edited meanwhile): P, built at 2 beside it, is
    // built again at 1 alone.
    const stale = await kv.get(["record"]);
    await kv.set(["record"], 2);
    const [a, p] = await Promise.all([
      groupWrite(kv, mine, "a", "A", [{ key: stale.key, versionstamp: stale.versionstamp }]),
      groupWrite(kv, mine, "p", "P"),
    ]);
    assert.equal(a.kind, "failed");
    assert.equal(p.kind, "committed");
    await storedAt(mine, "P", 1);
    // Another process stores number 2.
    const op = other.atomic();
    theirs.write(postback("b", 2), op);
    assert.ok((await op.set(["console_delivery_seq"], 2).commit()).ok);
    await mine.index();
    assert.deepEqual(seqs(await mine.list({ hookId: "p" })), [1]);
    assert.deepEqual(seqs(await mine.list({ hookId: "b" })), [2]);
    // In one process too: the mark never passes what is stored, and the next postback is listed.
    const q = await groupWrite(kv, mine, "q", "Q");
    assert.equal(q.kind, "committed");
    await storedAt(mine, "Q", 3);
    await mine.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 3);
    assert.deepEqual(seqs(await mine.list({ hookId: "q" })), [3]);
    assert.deepEqual(seqs(await mine.list({ hookId: "p" })), [1]);
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

Deno.test("once every row of the log is gone (expired), a hook's packs list nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv);
    await store(kv, deliveries, ["a", "a", "b"]);
    await deliveries.index();
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [2, 1]);
    // KV expires the rows (each lives maxAgeMs); their packs may outlive them a little.
    for (const seq of [1, 2, 3]) await kv.delete(["console_delivery_log", seq]);
    assert.deepEqual(await deliveries.list({ hookId: "a" }), []);
    assert.equal((await deliveries.stats("a")).accepted, 0);
  } finally {
    kv.close();
  }
});

/** `kv` with the log's rows read by range (a pass reads the log so; trimming and listing read by prefix) counted. */
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
