// API.md, "Relay": `relay.write` "adds one outbox entry per enabled
// destination that matches". A postback written while its destination is
// disabled is not for it: enabled again, the destination gets only what was
// written after, never the one from while it was off.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("relay.write adds no entry for a disabled destination: enabled again, it gets only later postbacks", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await relay.destinations.update(destination.id, { enabled: false });
    await relay.destinations.list(); // the write below sees the disabled destination
    await writeAll(kv, relay.write, [postback("h1", 0, "a".repeat(64))]);
    assert.deepEqual(await relay.forwards("a".repeat(64)), [], "no forward of a postback written while disabled");
    await relay.destinations.update(destination.id, { enabled: true });
    await relay.destinations.list();
    await writeAll(kv, relay.write, [postback("h1", 0, "b".repeat(64))]);
    const worker = relay.run();
    await app.waitFor(1);
    // Time for an entry from while it was disabled to be taken and sent, were there one.
    await until(async () => (await relay.forwards("b".repeat(64)))[0]?.state === "delivered", 5_000, "the delivery");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await worker.stop();
    assert.deepEqual(app.received.map((r) => JSON.parse(r.body).data.postbackId), ["b".repeat(64)]);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
