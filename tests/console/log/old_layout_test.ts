// A log an earlier version wrote (issue 41): numbered by the one counter
// `["console_delivery_seq"]`, from 1. Its numbers are far below this
// version's, so its rows come first: it still reads, with no migration,
// old ids resolve, pages run across the two, and trimming counts its rows.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

/** Writes `n` one-item postbacks as the earlier version's receiver did: rows 1..n, ids `q{n}-0`, the counter. */
async function oldLog(kv: Deno.Kv, n: number): Promise<void> {
  const op = kv.atomic();
  for (let seq = 1; seq <= n; seq++) {
    const id = `q${seq.toString(36).padStart(9, "0")}-0`;
    const view = {
      seq,
      id,
      hookId: "h1",
      receivedAt: new Date(Date.now() - 60_000).toISOString(),
      verb: "jive:created",
      title: `old ${seq}`,
      webhook: "",
      status: 200,
      postbackId: `old${seq}`.padEnd(64, "0"),
    };
    // Its row: the summary's JSON and, short, the payload after a newline.
    op.set(["console_delivery_log", seq], new TextEncoder().encode(`${JSON.stringify(view)}\n{"old":${seq}}`));
  }
  op.set(["console_delivery_seq"], n);
  assert.ok((await op.commit()).ok);
}

Deno.test("a log the earlier version wrote reads after the upgrade: old rows first, old ids resolve, pages cross", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await oldLog(kv, 6);
    const store = new DeliveryStore(kv, { retain: 1000 });
    const added = [...await store.add("h1", [{ activity: { title: "new 1" } }]), ...await store.add("h1", [{}])];
    assert.ok(added[0].seq > 6 && added[1].seq > added[0].seq);
    const all = await store.list({ limit: 100 });
    assert.deepEqual(all.map((view) => view.seq), [added[1].seq, added[0].seq, 6, 5, 4, 3, 2, 1]);
    // Ids both ways: the old `q{n}-{index}` and this version's.
    assert.equal((await store.get("q000000003-0"))?.payload, '{"old":3}');
    assert.equal((await store.get("q000000003-0"))?.title, "old 3");
    assert.equal((await store.get(added[0].id))?.title, "new 1");
    assert.equal(await store.get("q000000009-0"), null);
    // Pages newest first, Older and Newer across the two layouts.
    const newest = await store.page({ limit: 3 });
    assert.deepEqual(newest.values.map((view) => view.seq), [added[1].seq, added[0].seq, 6]);
    const older = await store.page({ limit: 3, before: newest.before });
    assert.deepEqual(older.values.map((view) => view.seq), [5, 4, 3]);
    const newer = await store.page({ limit: 3, after: older.after });
    assert.deepEqual(newer.values.map((view) => view.seq), [added[1].seq, added[0].seq, 6]);
    assert.deepEqual((await store.list({ hookId: "h1", limit: 3 })).map((v) => v.seq), [added[1].seq, added[0].seq, 6]);
  } finally {
    kv.close();
  }
});

Deno.test("after the upgrade, trimming counts the earlier version's rows and trims them first", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await oldLog(kv, 30);
    // Entries older versions kept beside a row: a copy by hook, request details by number, a body entry.
    const op = kv.atomic();
    for (let seq = 1; seq <= 30; seq++) {
      op.set(["console_delivery_log_by_hook", "h1", seq], { seq });
      op.set(["console_attempt_at", seq], { durationMs: seq });
      op.set(["console_delivery_body", `q${seq.toString(36).padStart(9, "0")}-0`], { payload: "{}", truncated: false });
    }
    assert.ok((await op.commit()).ok);
    const store = new DeliveryStore(kv, { retain: 10 });
    const added = [];
    for (let n = 0; n < 4; n++) added.push(...await store.add("h1", [{}]));
    await store.flush();
    const kept = await store.list({ limit: 100 });
    assert.deepEqual(kept.map((view) => view.seq), [...added.map((v) => v.seq).reverse(), 30, 29, 28, 27, 26, 25]);
    // Trimmed with their rows: only the kept rows' entries are left.
    const left = async (prefix: string) => {
      const out: Deno.KvKey[] = [];
      for await (const e of kv.list({ prefix: [prefix] })) out.push(e.key);
      return out;
    };
    const keptOld = [25, 26, 27, 28, 29, 30];
    assert.deepEqual(
      await left("console_delivery_log_by_hook"),
      keptOld.map((seq) => ["console_delivery_log_by_hook", "h1", seq]),
    );
    assert.deepEqual(await left("console_attempt_at"), keptOld.map((seq) => ["console_attempt_at", seq]));
    const bodies = (await left("console_delivery_body")).map((key) => key[1]);
    assert.deepEqual(
      bodies.sort(),
      [...keptOld.map((seq) => `q${seq.toString(36).padStart(9, "0")}-0`), ...added.map((v) => v.id)].sort(),
    );
  } finally {
    kv.close();
  }
});
