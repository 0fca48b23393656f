// A fan-out record (["relay_fanout", id]: an item written while its writer's list of destinations was not fresh)
// edited by hand into junk (`null`, a string, a record without its item) is passed over by workers, left as it is, and
// holds back none behind it: the records after it are still turned into entries and delivered.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

for (
  const [name, junk] of [["null", null], ["a string", "x"], ["an empty record", {}], ["a record of no item", { id: 1 }]]
) {
  Deno.test(`a fan-out record edited into ${name} holds back none after it`, async () => {
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const admin = createRelay(kv, { allowPrivateNetwork: true });
    const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 }); // its list not read yet: writes fan out
    try {
      await seedHooks(kv);
      const { id } = await admin.destinations.add({ url: app.url });
      const [A, B] = ["a".repeat(64), "b".repeat(64)];
      await writeAll(kv, relay.write, [postback("h1", 0, A), postback("h1", 0, B)]);
      const [first] = await Array.fromAsync(kv.list({ prefix: ["relay_fanout"] }));
      assert.ok((await kv.set(first.key, junk)).ok); // the first record, listed before the other
      const worker = relay.run();
      try {
        await until(async () => (await relay.forwards(B)).some((f) => f.state === "delivered"), 5_000, "B delivered");
      } finally {
        await worker.stop();
      }
      assert.equal(app.received.length, 1);
      assert.deepEqual((await relay.forwards(B)).map((f) => [f.destinationId, f.state]), [[id, "delivered"]]);
      const left = await Array.fromAsync(kv.list({ prefix: ["relay_fanout"] }));
      assert.deepEqual(left.map((e) => [e.key, e.value]), [[first.key, junk]], "the damaged record is left as it is");
    } finally {
      for (const r of [admin, relay]) await r.close();
      await app.close();
      kv.close();
    }
  });
}
