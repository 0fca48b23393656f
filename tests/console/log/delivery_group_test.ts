// The delivery store's group commit: postbacks that arrive while one is being
// stored go together in one atomic operation, each still stored once, whole,
// each at numbers of its own; a group whose commit fails is stored part by part.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import type { DeliveryView } from "../../../console/log/mod.ts";
import { faulty } from "../_kv_faults.ts";

const item = (n: number) => ({
  webhook: "https://jive.example/api/core/v3/webhooks/1",
  activity: { verb: "jive:created", title: `item ${n}` },
});

/** The sequence numbers of every stored summary, oldest first. */
async function sequence(store: DeliveryStore): Promise<number[]> {
  return (await store.list({ limit: 10_000, forward: true })).map((view) => view.seq);
}

Deno.test("postbacks arriving together are stored in a few commits, each once, each at numbers of its own", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const counted = faulty(kv, new Set());
    const store = new DeliveryStore(counted.kv, { retain: 10_000 });
    const ids = Array.from({ length: 200 }, (_, n) => `postback-${n}`);
    const stores = ids.map((id, n) =>
      store.addPostback(id, Array.from({ length: 1 + (n % 3) }, (_, k) => ({ hookId: "h1", item: item(k) })))
    );
    // The same postbacks again while the first copies are still waiting: a retry stores nothing twice.
    const again = ids.slice(0, 20).map((id) => store.addPostback(id, [{ hookId: "h1", item: item(99) }]));
    const refused = Array.from({ length: 10 }, (_, n) =>
      store.addRejected({
        status: 401,
        reason: `forged ${n}`,
        durationMs: 1,
        receivedAt: Date.now(),
        bodyExcerpt: "",
        headers: {},
      }));
    const first = await Promise.all(stores);
    const second = await Promise.all(again);
    await Promise.all(refused);
    const items = first.reduce((sum, views) => sum + views.length, 0);
    assert.equal(items, ids.reduce((sum, _, n) => sum + 1 + (n % 3), 0));
    for (const [n, views] of second.entries()) {
      assert.deepEqual(views.map((v: DeliveryView) => v.seq), first[n].map((v) => v.seq), ids[n]);
    }
    const seqs = await sequence(store);
    assert.equal(seqs.length, items + 10);
    assert.equal(new Set(seqs).size, seqs.length, "no number taken twice");
    const all = [...first.flat(), ...(await Promise.all(refused))].map((v) => v.seq).sort((p, q) => p - q);
    assert.deepEqual(seqs, all);
    assert.ok(counted.commits() < 60, `${counted.commits()} commits for 230 writes`);
  } finally {
    kv.close();
  }
});

Deno.test("a group whose commit fails is stored part by part, and nothing twice", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // All nine (the most one group checks markers for: ten checks with the counter's, as KV Connect takes)
    // wait together; the commit of their group fails.
    const failing = faulty(kv, new Set([2]));
    const store = new DeliveryStore(failing.kv, { retain: 1000 });
    await store.ready(); // commit 1: its writer slot
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, n) => store.addPostback(`p${n}`, [{ hookId: "h1", item: item(n) }])),
    );
    assert.equal(results.flat().length, 9);
    // The failed group commit, then the group commit's retries (Module A's), which store each once.
    assert.ok(failing.commits() >= 3, `${failing.commits()} commits`);
    assert.deepEqual(await sequence(store), results.flat().map((v) => v.seq).sort((p, q) => p - q));
  } finally {
    kv.close();
  }
});

Deno.test("two copies of one postback waiting in the same group are stored once, both answered with it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 1000 });
    // The first is being stored while both copies wait, so they would go together in the next group.
    const first = store.addPostback("first", [{ hookId: "h1", item: item(0) }]);
    const copies = [1, 2].map(() => store.addPostback("same", [{ hookId: "h1", item: item(1) }]));
    const [a, b] = await Promise.all(copies);
    const [one] = await first;
    assert.equal(a.length, 1);
    assert.deepEqual(b, a);
    assert.deepEqual(await sequence(store), [one.seq, a[0].seq]);
  } finally {
    kv.close();
  }
});
