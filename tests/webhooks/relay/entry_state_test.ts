// relay.entryState(id) for an entry past its fan-out: "paused" while its destination is disabled, "waiting" while it
// is due again after a failed attempt (the CLI's `relay attempts` says which). Other tests ask only for ids in the
// fan-out, dead letters, or none.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "s".repeat(64);

Deno.test("relay.entryState answers paused for an entry kept while its destination is disabled", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    const [{ entryId }] = await relay.forwards(P);
    await relay.destinations.update(destination.id, { enabled: false });
    const worker = relay.run();
    try {
      await until(async () => (await relay.entryState(entryId)) === "paused", 5_000, "the entry kept");
    } finally {
      await worker.stop();
    }
    assert.equal(app.received.length, 0);
    assert.equal(await relay.entryState(entryId), "paused");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay.entryState answers waiting for an entry due again after a failed attempt", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("down", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50, schedule: [60_000] });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    const [{ entryId }] = await relay.forwards(P);
    const worker = relay.run();
    try {
      await until(async () => (await relay.attempts(entryId)).length === 1, 5_000, "the failed attempt");
    } finally {
      await worker.stop();
    }
    assert.equal(await relay.entryState(entryId), "waiting");
    assert.equal((await relay.forwards(P))[0].state, "pending");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay.entryState answers waiting for an entry not yet fanned out to its destinations, and refuses an empty id", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
    // A relay that has not read its destinations yet writes a fan-out record, not an entry per destination.
    const fresh = createRelay(kv, { allowPrivateNetwork: true });
    try {
      await writeAll(kv, fresh.write, [postback("h1", 0, P)]);
    } finally {
      await fresh.close();
    }
    const [{ entryId, destinationId }] = await relay.forwards(P);
    assert.equal(destinationId, null);
    assert.equal(await relay.entryState(entryId), "waiting");
    for (const id of ["", 7, null]) {
      await assert.rejects(
        relay.entryState(id as never),
        (error: Error) =>
          error instanceof TypeError && /Cannot find entry: 'entryId' must be a non-empty string/.test(error.message),
      );
    }
  } finally {
    await relay.close();
    kv.close();
  }
});
