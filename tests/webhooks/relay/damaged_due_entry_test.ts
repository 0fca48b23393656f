/**
 * A damaged outbox entry (edited by hand into `null`, a string, or a record without its fields) that is due in the
 * shared partition names no destination, so no removal deletes it: it must not hold back the healthy entries behind
 * it. A worker's take read its fields and threw at every look, so the shared partition delivered nothing again.
 */

import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const ENTRY_ID = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV";

Deno.test("a damaged due entry in the shared partition holds back no healthy delivery", async () => {
  for (const junk of [null, "junk", { destinationId: 5 }]) {
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
    try {
      await seedHooks(kv);
      const destination = await relay.destinations.add({ url: app.url });
      await kv.set(["relay_due", "*", 0, ENTRY_ID], junk); // due long ago: first in the partition
      for (const worker of [relay.run(), relay.run({ destinations: [destination.id] })]) {
        const before = app.received.length;
        await writeAll(kv, relay.write, [postback("h1", before)]);
        await until(() => Promise.resolve(app.received.length > before), 10_000, `delivered beside ${String(junk)}`);
        await worker.stop();
      }
    } finally {
      await relay.close();
      await app.close();
      kv.close();
    }
  }
});
