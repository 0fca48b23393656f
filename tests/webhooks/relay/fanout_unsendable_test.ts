// A fan-out record edited by hand so that its activity holds what JSON cannot write (a BigInt, or a cycle: KV keeps
// both) passed the check of its shape, and turning it threw at its size (JSON.stringify): the worker's fan-out gave up
// at that record on every look, and every record behind it waited for good, their postbacks never delivered. Such a
// record must be passed over and left as it is, the records after it turned and delivered.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const cyclic: Record<string, unknown> = { verb: "x" };
cyclic.self = cyclic;

for (const [name, activity] of [["a BigInt", { verb: "x", n: 1n }], ["a cycle", cyclic]] as const) {
  Deno.test(`a fan-out record whose activity holds ${name} holds back none after it`, async () => {
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const admin = createRelay(kv, { allowPrivateNetwork: true });
    const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 }); // its list not read yet: writes fan out
    try {
      await seedHooks(kv);
      const { id } = await admin.destinations.add({ url: app.url });
      const [A, B] = ["a".repeat(64), "b".repeat(64)];
      await writeAll(kv, relay.write, [postback("h1", 0, A), postback("h1", 0, B)]);
      const [first] = await Array.fromAsync(kv.list<Record<string, unknown>>({ prefix: ["relay_fanout"] }));
      const junk = { ...first.value, activity };
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
      assert.deepEqual(left.map((e) => e.key), [first.key], "the damaged record is left as it is");
    } finally {
      for (const r of [admin, relay]) await r.close();
      await app.close();
      kv.close();
    }
  });
}
