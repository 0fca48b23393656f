/**
 * A due outbox entry edited by hand so that its activity holds what JSON cannot write (a BigInt, or a cycle: KV
 * keeps both) passed the check of its shape, and a worker's take threw at its body (JSON.stringify) at every look:
 * nothing after it in its partition was delivered again. It must be passed over as other damaged entries are, and
 * the healthy entries behind it delivered.
 */

import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const ENTRY_ID = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV";
const cyclic: Record<string, unknown> = { verb: "x" };
cyclic.self = cyclic;

Deno.test("a due entry whose activity JSON cannot write holds back no healthy delivery", async () => {
  for (const activity of [{ verb: "x", n: 1n }, cyclic]) {
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
    try {
      await seedHooks(kv);
      const destination = await relay.destinations.add({ url: app.url });
      const junk = {
        ...{ destinationId: destination.id, hookId: "h1", tenantId: "t1", postbackId: "p".repeat(64), index: 0 },
        activity,
        acceptedAt: 0,
      };
      await kv.set(["relay_due", "*", 0, ENTRY_ID], junk); // due long ago: first in the partition
      const worker = relay.run();
      try {
        await writeAll(kv, relay.write, [postback("h1", 0)]);
        await until(() => Promise.resolve(app.received.length > 0), 10_000, "delivered behind the damaged entry");
      } finally {
        await worker.stop();
      }
    } finally {
      await relay.close();
      await app.close();
      kv.close();
    }
  }
});
