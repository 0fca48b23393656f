/**
 * A damaged outbox entry (edited by hand into `null`, a string, or a record without its fields) must not stop a
 * removal: `remove` threw a bare TypeError after its commit ("Cannot read properties of null", "expected string, ..."),
 * and housekeeping met the same entry at every look, so the removal never finished. A pinned destination's partition
 * is its own: a damaged entry there goes with it. One in the shared partition names no destination: left as it is.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

const ENTRY_ID = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV";

Deno.test("a damaged outbox entry holds back no removal, pinned or not", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [] });
  try {
    await seedHooks(kv);
    for (const junk of [null, "junk", { destinationId: 5 }]) {
      const pinned = await relay.destinations.add({ url: "http://127.0.0.1:9/pinned", pinned: true });
      await kv.set(["relay_due", pinned.id, Date.now() + 1e9, ENTRY_ID], junk);
      assert.equal(await relay.destinations.remove(pinned.id), true, `pinned, beside ${JSON.stringify(junk)}`);
      assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["relay_due", pinned.id] })), [], "its partition");
      assert.equal(
        (await kv.get<{ dropped: boolean }>(["relay_removed", pinned.id])).value?.dropped,
        true,
        "its removal finished",
      );

      const shared = await relay.destinations.add({ url: "http://127.0.0.1:9/shared" });
      const key = ["relay_due", "*", Date.now() + 1e9, ENTRY_ID];
      await kv.set(key, junk);
      assert.equal(await relay.destinations.remove(shared.id), true, `unpinned, beside ${JSON.stringify(junk)}`);
      assert.equal(
        (await kv.get<{ dropped: boolean }>(["relay_removed", shared.id])).value?.dropped,
        true,
        "its removal finished",
      );
      assert.deepEqual((await kv.get(key)).value, junk, "the shared entry, of no destination known, left as it is");
      await kv.delete(key);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});
