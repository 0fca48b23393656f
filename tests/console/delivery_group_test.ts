// The delivery store's group commit: postbacks that arrive while one is being
// stored go together in one atomic operation, each still stored once, whole,
// in commit order; a group whose commit fails is stored part by part.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../console/log/mod.ts";
import type { DeliveryView } from "../../console/log/mod.ts";
import { faulty } from "./_kv_faults.ts";

const item = (n: number) => ({
  webhook: "https://jive.example/api/core/v3/webhooks/1",
  activity: { verb: "jive:created", title: `item ${n}` },
});

/** The sequence numbers of every stored summary, oldest first. */
async function sequence(store: DeliveryStore): Promise<number[]> {
  return (await store.list({ limit: 10_000, forward: true })).map((view) => view.seq);
}

Deno.test("postbacks arriving together are stored in a few commits, each once, in one gapless sequence", async () => {
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
    assert.deepEqual(seqs, Array.from({ length: items + 10 }, (_, n) => n + 1));
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
    const failing = faulty(kv, new Set([1]));
    const store = new DeliveryStore(failing.kv, { retain: 1000 });
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, n) => store.addPostback(`p${n}`, [{ hookId: "h1", item: item(n) }])),
    );
    assert.equal(results.flat().length, 9);
    assert.equal(failing.commits(), 10, "one failed group commit, then one commit per postback");
    assert.deepEqual(await sequence(store), Array.from({ length: 9 }, (_, n) => n + 1));
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
    await first;
    assert.deepEqual(a.map((view) => view.seq), [2]);
    assert.deepEqual(b.map((view) => view.seq), [2]);
    assert.deepEqual(await sequence(store), [1, 2]);
  } finally {
    kv.close();
  }
});
