/**
 * An entry kept for a disabled destination (["relay_paused", destinationId, entryId]) edited by hand into junk (null,
 * a number, a record of another shape): enabling the destination read its partition and threw, so none of the kept
 * entries went back (housekeeping met it at every look); removing the destination threw too, leaving them all. The
 * junk names nothing to send: it is deleted, and the whole entries beside it are moved back, or dropped with it.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const JUNK_ID = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV";

async function keys(kv: Deno.Kv, prefix: string): Promise<Deno.KvKey[]> {
  return (await Array.fromAsync(kv.list({ prefix: [prefix] }))).map((e) => e.key);
}

Deno.test("a junk kept entry holds back no enable or removal of its destination", async () => {
  for (const junk of [null, 5, { partition: 3 }]) {
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    try {
      await seedHooks(kv);
      const { id } = await relay.destinations.add({ url: app.url });
      await writeAll(kv, relay.write, [postback("h1", 0)]);
      await relay.destinations.update(id, { enabled: false });
      const worker = relay.run(); // keeps the entry, as a disabled destination's
      await until(async () => (await keys(kv, "relay_paused")).length === 1, 5_000, "the kept entry");
      await worker.stop();
      const [kept] = await keys(kv, "relay_paused");
      await kv.set(["relay_paused", id, JUNK_ID], junk); // before the whole one (an earlier id)
      const what = `beside ${JSON.stringify(junk)}`;
      assert.equal((await relay.destinations.update(id, { enabled: true }))?.enabled, true, what);
      assert.deepEqual((await keys(kv, "relay_due")).map((k) => k.at(-1)), [kept[2]], `moved back ${what}`);
      await kv.set(["relay_paused", id, JUNK_ID], junk);
      assert.equal(await relay.destinations.remove(id), true, what);
      assert.deepEqual(await keys(kv, "relay_paused"), [], `dropped ${what}`);
    } finally {
      await relay.close();
      await app.close();
      kv.close();
    }
  }
});
