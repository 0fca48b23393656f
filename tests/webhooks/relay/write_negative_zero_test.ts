// A postback whose index is -0 (what Math.round(-0.2) or -1 * 0 gives, in a postback built by hand) passes
// relay.write()'s check as the integer 0 it equals, but KV keys tell -0 from 0: its forward was kept under -0 and
// forwards(postbackId, 0) never found it, though it was sent. Written as item 0, it is found as item 0 (and as -0).
// A real KV (:memory:) and a real app on 127.0.0.1, delivered by a real relay worker.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("relay.write() of a postback with index -0: sent, and found by forwards(postbackId, 0)", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const id = "n".repeat(64);
    await writeAll(kv, relay.write, [postback("h1", -0, id)]);
    const worker = relay.run();
    try {
      await until(() => app.received.length === 1, 10_000, "the postback delivered");
    } finally {
      await worker.stop();
    }
    assert.equal(JSON.parse(app.received[0].body).data.index, 0);
    for (const index of [0, -0, undefined]) {
      const forwards = await relay.forwards(id, index);
      assert.deepEqual(forwards.map((f) => [f.index, f.state]), [[0, "delivered"]], `forwards(postbackId, ${index})`);
      assert.ok(Object.is(forwards[0].index, 0), "the index is 0, not -0");
    }
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
