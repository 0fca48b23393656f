// A removed destination's dead letters were kept forever: no call deleted them (redeliver refuses them, its
// destination gone), and they stayed in relay.deadLetters() and its hook index. Its removal deletes them with its
// waiting entries; one it left (a removal killed after its commit, a letter dying as the removal ran) is deleted by
// a worker's housekeeping, which finishes removals by the ["relay_removed", id] mark.

import assert from "node:assert/strict";
import { createRelay, type DeadLetter } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** Two destinations of every hook whose every entry is dead: 3 postbacks of h1 and 2 of h2 each. */
async function withDeadLetters(
  fn: (relay: ReturnType<typeof createRelay>, kv: Deno.Kv, gone: string, kept: string) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("no", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [1], pollMs: 50 });
  try {
    await seedHooks(kv);
    const gone = await relay.destinations.add({ url: `${app.url}/gone` });
    const kept = await relay.destinations.add({ url: `${app.url}/kept` });
    const items = [0, 1, 2].map((i) => postback("h1", 0, `a${i}`)).concat(
      [0, 1].map((i) => postback("h2", 0, `b${i}`)),
    );
    await writeAll(kv, relay.write, items);
    const worker = relay.run();
    await until(async () => (await relay.deadLetters({ limit: 1000 })).values.length === 10, 20_000, "10 dead");
    await worker.stop();
    await fn(relay, kv, gone.id, kept.id);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

/** Every key under `prefix` that names `destinationId` (in its key or its value). */
async function keysOf(kv: Deno.Kv, prefix: string, destinationId: string): Promise<number> {
  let n = 0;
  for await (const e of kv.list<unknown>({ prefix: [prefix] })) {
    const v = e.value as Partial<DeadLetter> | string | null;
    if (e.key.includes(destinationId) || v === destinationId || (v as DeadLetter)?.destinationId === destinationId) n++;
  }
  return n;
}

async function assertGone(relay: ReturnType<typeof createRelay>, kv: Deno.Kv, gone: string, kept: string) {
  assert.deepEqual(await relay.deadLetters({ destinationId: gone }), { values: [], cursor: "" });
  const all = (await relay.deadLetters({ limit: 1000 })).values;
  assert.deepEqual(all.map((l) => l.destinationId), Array(5).fill(kept), "the other destination's are kept");
  for (const hookId of ["h1", "h2"]) {
    const mine = (await relay.deadLetters({ hookId, limit: 1000 })).values;
    assert.ok(mine.every((l) => l.destinationId === kept), `${hookId}'s list names only the kept destination`);
  }
  for (const prefix of ["relay_dead", "relay_dead_by_destination", "relay_dead_by_hook"]) {
    assert.equal(await keysOf(kv, prefix, gone), 0, `${prefix} holds nothing of the removed destination`);
  }
}

Deno.test("removing a destination deletes its dead letters and their indexes, keeping another destination's", async () => {
  await withDeadLetters(async (relay, kv, gone, kept) => {
    assert.equal((await relay.deadLetters({ destinationId: gone })).values.length, 5);
    assert.equal(await relay.destinations.remove(gone), true);
    await assertGone(relay, kv, gone, kept);
  });
});

Deno.test("a removal killed after its commit leaves dead letters that a worker's housekeeping deletes", async () => {
  await withDeadLetters(async (relay, kv, gone, kept) => {
    // What the removal's commit wrote, and nothing after it: the record gone, the destination marked removed.
    await kv.atomic().delete(["relay_destination", gone]).sum(["relay_destinations_version"], 1n)
      .set(["relay_removed", gone], { pinned: false, dropped: false }, { expireIn: 86_400_000 }).commit();
    assert.equal((await relay.deadLetters({ destinationId: gone })).values.length, 5);
    const later = createRelay(kv, { pollMs: 50 }); // another process, after the crash
    const worker = later.run();
    try {
      await until(
        async () => (await later.deadLetters({ destinationId: gone })).values.length === 0,
        10_000,
        "the removed destination's dead letters deleted",
      );
    } finally {
      await worker.stop();
      await later.close();
    }
    await assertGone(relay, kv, gone, kept);
  });
});
