// A hook id with a lone surrogate (a JavaScript string no UTF-8 can spell):
// KV writes it as U+FFFD in a key, so "h\uD800" and "h\uFFFD" are one key.
// No hook has such an id (the store refuses one), so the relay's lists by
// hook answer none for it, not another hook's.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("deadLetters({ hookId }) with a lone surrogate lists none, not the dead letters of the hook KV keys alike", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("down", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [], pollMs: 20 });
  const worker = relay.run();
  try {
    await seedHooks(kv, ["h\uFFFD"]);
    await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h\uFFFD", 0), postback("h\uFFFD", 1)]);
    await until(async () => (await relay.deadLetters()).values.length === 2, 10_000, "two dead letters");
    await worker.stop();
    assert.equal((await relay.deadLetters({ hookId: "h\uFFFD" })).values.length, 2);
    for (const hookId of ["h\uD800", "h\uDC00"]) {
      assert.deepEqual(await relay.deadLetters({ hookId }), { values: [], cursor: "" }, JSON.stringify(hookId));
      assert.deepEqual(await relay.deadLetters({ hookId, newestFirst: true }), { values: [], cursor: "" });
    }
  } finally {
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});
