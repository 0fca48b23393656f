// Every kind of mutation a job or a receiver's `write` may add goes through
// the group commit's recording (webhooks/group_commit/_atomic_recorder.ts)
// and, in the receiver, its tee (webhooks/receiver/_atomic_tee.ts), then is
// replayed into the real commit: each one's stored result is read back.

import assert from "node:assert/strict";
import { commitInGroup, createReceiver, createWebhooks, type GroupJob } from "../../../webhooks/mod.ts";
import { item, NOW, post, seed, signA } from "../_receiver.ts";

/** Adds one of each mutation kind under `prefix`; `enqueue` only where the KV has a queue. */
function everyKind(atomic: Deno.AtomicOperation, prefix: string, queue: boolean): void {
  atomic
    .set([prefix, "set"], { kept: true })
    .set([prefix, "expiring"], "soon", { expireIn: 60_000 })
    .delete([prefix, "deleted"])
    .sum([prefix, "sum"], 5n)
    .min([prefix, "min"], 3n)
    .max([prefix, "max"], 9n)
    .mutate({ type: "set", key: [prefix, "mutated"], value: 7 }, {
      type: "sum",
      key: [prefix, "sum"],
      value: new Deno.KvU64(1n),
    });
  if (queue) atomic.enqueue({ from: prefix }, { keysIfUndelivered: [[prefix, "undelivered"]] });
}

/** What `everyKind` left under `prefix`, after the seed below. */
async function stored(kv: Deno.Kv, prefix: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (const entry of kv.list({ prefix: [prefix] })) {
    const value = entry.value instanceof Deno.KvU64 ? `u64:${entry.value.value}` : entry.value;
    out[String(entry.key[1])] = value;
  }
  return out;
}

/** Values the mutations act on: one to delete, one each for sum, min and max. */
async function seedKinds(kv: Deno.Kv, prefix: string): Promise<void> {
  await kv.atomic()
    .set([prefix, "deleted"], "gone soon")
    .set([prefix, "sum"], new Deno.KvU64(10n))
    .set([prefix, "min"], new Deno.KvU64(4n))
    .set([prefix, "max"], new Deno.KvU64(4n))
    .commit();
}

/** Whether the KV of this run has a queue: Deno's KV Connect client has none (`deno task test:kvconnect`). */
const QUEUE = Deno.env.get("KV_CONNECT") !== "1";

const EXPECTED = {
  expiring: "soon",
  max: "u64:9",
  min: "u64:3",
  mutated: 7,
  set: { kept: true },
  sum: "u64:16",
};

Deno.test("commitInGroup() records and replays set, set with expireIn, delete, sum, min, max, mutate, check and enqueue", async () => {
  const kv = await Deno.openKv(":memory:");
  const delivered: unknown[] = [];
  const bothDelivered = Promise.withResolvers<void>();
  const listening = QUEUE
    ? kv.listenQueue((message) => {
      delivered.push(message);
      if (delivered.length === 2) bothDelivered.resolve();
    })
    : Promise.resolve();
  try {
    await seedKinds(kv, "a");
    await seedKinds(kv, "b");
    const guard = await kv.get(["guard"]);
    const job = (prefix: string): GroupJob => ({
      checks: [],
      build: (atomic) => {
        atomic.check({ key: ["guard"], versionstamp: guard.versionstamp });
        everyKind(atomic, prefix, QUEUE);
      },
    });
    // Two jobs at once: they share one commit, each one's mutations replayed in it.
    const results = await Promise.all([commitInGroup(kv, job("a")), commitInGroup(kv, job("b"))]);
    assert.deepEqual(results.map((r) => r.kind), ["committed", "committed"]);
    assert.deepEqual(await stored(kv, "a"), EXPECTED);
    assert.deepEqual(await stored(kv, "b"), EXPECTED);
    if (QUEUE) {
      const timeout = setTimeout(
        () => bothDelivered.reject(new Error(`enqueued: ${JSON.stringify(delivered)}`)),
        10_000,
      );
      await bothDelivered.promise.finally(() => clearTimeout(timeout));
      assert.deepEqual(delivered.map((m) => (m as { from: string }).from).sort(), ["a", "b"]);
    }
    // A check a job adds is replayed too: once it no longer holds, that job writes nothing.
    await kv.set(["guard"], "moved");
    const failed = await commitInGroup(kv, job("c"));
    assert.equal(failed.kind, "failed");
    assert.deepEqual(await stored(kv, "c"), {});
  } finally {
    kv.close();
    await listening;
  }
});

Deno.test("a receiver's write adds every mutation kind through its tee, committed with the claim", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await seedKinds(kv, "w");
    const receiver = createReceiver(hooks, {
      now: () => NOW,
      write: (_postback, atomic) => {
        atomic.check({ key: ["never", "written"], versionstamp: null });
        everyKind(atomic, "w", QUEUE);
      },
    });
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 1 });
    assert.deepEqual(await stored(kv, "w"), EXPECTED);
  } finally {
    kv.close();
  }
});
