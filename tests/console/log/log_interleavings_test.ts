// A property over interleavings of the delivery log's writers and readers
// on one in-memory KV: two stores (two processes' writer slots) add
// postbacks of two hooks, trim to a small retention (in the background as
// they write, and when they flush), pack the hook index, while a reader
// walks pages Older or Newer (all hooks, or one) and a live reader reads
// what is new. Whatever the order:
// - a walk shows no row twice, in order, and skips no row that was there
//   when it started and is there still, between the first and the last it
//   showed; a cursor whose rows were trimmed answers a page, not an error;
// - the live reader gives each row once, and every row the log holds past
//   where it started;
// - the summary (stats) counts what a full read of the log lists.

import assert from "node:assert/strict";
import fc from "fast-check";
import { DeliveryStore, type DeliveryView } from "../../../console/log/mod.ts";

type Op =
  | { kind: "add"; store: 0 | 1; hook: 0 | 1; items: number }
  | { kind: "flush"; store: 0 | 1 }
  | { kind: "index"; store: 0 | 1 }
  | { kind: "page"; older: boolean; hook: number }
  | { kind: "live" };

const HOOKS = ["h1", "h2"];
const RETAIN = 40;

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      store: fc.constantFrom(0 as const, 1 as const),
      hook: fc.constantFrom(0 as const, 1 as const),
      items: fc.integer({ min: 1, max: 12 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("flush" as const), store: fc.constantFrom(0 as const, 1 as const) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("index" as const), store: fc.constantFrom(0 as const, 1 as const) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("page" as const),
      older: fc.boolean(),
      hook: fc.integer({ min: -1, max: 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("live" as const) }) },
);

/** A walk of pages in one direction, of one hook or all. */
interface Walk {
  older: boolean;
  hookId?: string;
  cursor?: number;
  shown: number[];
  /** The log's rows (of the hook) when the walk started. */
  at: Set<number>;
}

async function rowsOf(store: DeliveryStore, hookId?: string): Promise<DeliveryView[]> {
  return await store.list({ hookId, limit: 100_000 });
}

/** Checks a finished walk against the log as it is now. */
async function endWalk(store: DeliveryStore, walk: Walk): Promise<void> {
  if (walk.shown.length === 0) return;
  const now = new Set((await rowsOf(store, walk.hookId)).map((v) => v.seq));
  const lo = Math.min(...walk.shown), hi = Math.max(...walk.shown);
  const shown = new Set(walk.shown);
  const skipped = [...walk.at].filter((seq) => now.has(seq) && seq > lo && seq < hi && !shown.has(seq));
  assert.deepEqual(
    skipped,
    [],
    `a walk ${walk.older ? "Older" : "Newer"} of ${walk.hookId ?? "all"} skipped kept rows`,
  );
}

async function run(ops: Op[]): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const stores = [0, 1].map(() => new DeliveryStore(kv, { retain: RETAIN, settleMs: 0 }));
  const [reader] = stores;
  try {
    let n = 0;
    let walk: Walk | null = null;
    const live = reader.liveReader();
    await live.start();
    const given = new Set<number>();
    const liveFrom = (await rowsOf(reader))[0]?.seq ?? 0;
    for (const o of ops) {
      if (o.kind === "add") {
        const items = Array.from({ length: o.items }, () => ({ activity: { verb: "jive:created", title: `t${n++}` } }));
        await stores[o.store].add(HOOKS[o.hook], items);
      } else if (o.kind === "flush") await stores[o.store].flush();
      else if (o.kind === "index") await stores[o.store].index();
      else if (o.kind === "live") {
        for (const view of await live.next()) {
          assert.ok(!given.has(view.seq), `the live reader gave ${view.seq} twice`);
          given.add(view.seq);
        }
      } else {
        const hookId = o.hook < 0 ? undefined : HOOKS[o.hook];
        if (walk && (walk.older !== o.older || walk.hookId !== hookId)) await endWalk(reader, walk), walk = null;
        if (!walk) {
          // A Newer walk starts at the oldest page (after 0), an Older one at the newest.
          const at = new Set((await rowsOf(reader, hookId)).map((v) => v.seq));
          walk = { older: o.older, hookId, shown: [], at, ...(o.older ? {} : { cursor: 0 }) };
        }
        const page = await reader.page({
          hookId,
          limit: 7,
          ...(walk.cursor === undefined ? {} : walk.older ? { before: walk.cursor } : { after: walk.cursor }),
        });
        const seqs = page.values.map((v) => v.seq);
        for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] < seqs[i - 1], "a page is newest first");
        for (const seq of seqs) assert.ok(!walk.shown.includes(seq), `a walk showed ${seq} twice`);
        if (hookId) assert.ok(page.values.every((v) => v.hookId === hookId), "a hook's page holds its rows only");
        walk.shown.push(...seqs);
        const next = walk.older ? page.before : page.after;
        if (next === undefined) await endWalk(reader, walk), walk = null;
        else walk.cursor = next;
      }
    }
    if (walk) await endWalk(reader, walk);
    for (const store of stores) await store.flush();
    for (const view of await live.next()) {
      assert.ok(!given.has(view.seq), `the live reader gave ${view.seq} twice`);
      given.add(view.seq);
    }
    const all = await rowsOf(reader);
    const missed = all.filter((v) => v.seq > liveFrom && !given.has(v.seq)).map((v) => v.seq);
    assert.deepEqual(missed, [], "the live reader gave every row the log holds past its start");
    for (const hookId of [undefined, ...HOOKS]) {
      const stats = await reader.stats(hookId);
      const rows = await rowsOf(reader, hookId);
      assert.equal(stats.accepted + stats.rejected, rows.length, `the summary of ${hookId ?? "all"} counts its rows`);
      assert.equal(stats.last?.seq, rows[0]?.seq, `the summary of ${hookId ?? "all"} names its newest`);
    }
  } finally {
    kv.close();
  }
}

Deno.test("interleaved adds, trims, index passes, page walks and live reads keep each row once and none kept skipped", async () => {
  await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 150 }), run), { numRuns: 300 });
});
