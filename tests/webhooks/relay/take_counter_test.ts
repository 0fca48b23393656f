// A worker knows the take counter from its own last take and lists again
// without reading it; when something else moved the counter meanwhile (here
// a removal, which bumps it as a take does), its next take fails its check
// and it must read the counter again, not keep failing on the one it knew.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("a worker whose known take counter went stale (a removal bumped it) reads it again and goes on delivering", async () => {
  const kv = await Deno.openKv(":memory:");
  const [app, other] = [startApp(), startApp()];
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  let worker: { stop(): Promise<void> } | null = null;
  try {
    await seedHooks(kv);
    const mine = await relay.destinations.add({ url: app.url });
    const skipped = await relay.destinations.add({ url: other.url });
    await relay.destinations.list();
    await new Promise((r) => setTimeout(r, 50)); // the writer's list reloads after the adds
    const P = "c".repeat(64);
    await writeAll(kv, relay.write, Array.from({ length: 10 }, (_, i) => postback("h1", i, P)), 10);
    // A worker for one destination: the other's entries wait in the shared partition beside its own.
    worker = relay.run({ concurrency: 2, destinations: [mine.id] });
    await until(() => app.received.length === 10, 10_000, "the first ten");
    // The removal deletes the waiting entries of the other destination, bumping the counter the worker knows.
    assert.equal(await relay.destinations.remove(skipped.id), true);
    await writeAll(kv, relay.write, Array.from({ length: 10 }, (_, i) => postback("h1", 10 + i, P)), 10);
    await until(() => app.received.length === 20, 10_000, "the ten written after the removal");
    assert.equal(new Set(app.received.map((r) => r.id)).size, 20);
    assert.equal(other.received.length, 0);
  } finally {
    await worker?.stop();
    await relay.close();
    await app.close();
    await other.close();
    kv.close();
  }
});
