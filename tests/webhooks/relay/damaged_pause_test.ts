// The entries of a destination whose record is damaged wait, as a disabled destination's do (docs/relay.md): kept,
// untried, until it is removed. The worker judged "disabled" from the damaged view but re-read the raw record before
// keeping an entry: a partly valid record (its URL gone, `enabled: true` left) read as enabled, so each entry was
// given back and taken again without end, never kept; a `null` record read as removed, and its entries were deleted.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "d".repeat(64);

/** Entries waiting for a destination whose record `damage` then rewrote; the worker runs until they are kept. */
async function keptAfter(damage: (record: Record<string, unknown>) => unknown): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [0, 1].map((i) => postback("h1", i, P)));
    const ids = (await relay.forwards(P)).map((f) => f.entryId);
    const key = ["relay_destination", id];
    const record = (await kv.get<Record<string, unknown>>(key)).value!;
    await kv.atomic().set(key, damage(record)).sum(["relay_destinations_version"], 1n).commit();
    // Listed (the version read): the relay's cache holds the damaged record before the worker starts.
    assert.notEqual((await relay.destinations.list()).find((d) => d.id === id)?.damaged, undefined);
    const worker = relay.run({ concurrency: 1 });
    try {
      await until(
        async () => {
          const forwards = await relay.forwards(P);
          return forwards.length === 2 && forwards.every((f) => f.state === "pending" && f.nextAttemptAt === null);
        },
        5_000,
        "the damaged destination's entries kept",
      );
    } finally {
      await worker.stop();
    }
    assert.equal(app.received.length, 0);
    assert.deepEqual((await relay.forwards(P)).map((f) => [f.entryId, f.attempts]), ids.map((e) => [e, 0]));
    assert.equal(await relay.destinations.remove(id), true, "removed, it takes them with it");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("a partly valid damaged record (no URL, enabled: true) keeps its entries, untried", async () => {
  await keptAfter(({ url: _url, ...rest }) => rest);
});

Deno.test("a damaged record whose enabled is a truthy string keeps its entries, untried", async () => {
  await keptAfter((record) => ({ ...record, enabled: "yes" }));
});

Deno.test("a null record keeps its entries, untried, rather than deleting them", async () => {
  await keptAfter(() => null);
});
