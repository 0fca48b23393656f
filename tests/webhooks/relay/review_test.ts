// Defects found by a hostile review of the relay: each test failed on the
// code before its fix.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, writeAll } from "./fixtures.ts";

Deno.test("destinations.add() with unique refuses a URL that differs only by its fragment (never sent, same app)", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const app = startApp();
  try {
    await seedHooks(kv);
    const first = await relay.destinations.add({ url: `${app.url}#a`, hookIds: ["h1"], unique: true });
    assert.equal(first.url, app.url);
    await assert.rejects(
      () => relay.destinations.add({ url: `${app.url}#b`, hookIds: ["h1"], unique: true }),
      /^TypeError: Cannot add destination: .* already receives the postbacks of hook 'h1'/,
    );
    const other = await relay.destinations.add({ url: `${app.url}/other`, hookIds: ["h1"], unique: true });
    await assert.rejects(
      () => relay.destinations.update(other.id, { url: `${app.url}#c`, unique: true }),
      /already receives the postbacks of hook 'h1'/,
    );
    await relay.destinations.remove(other.id);
    // The app gets each postback once.
    await new Promise((r) => setTimeout(r, 50));
    await writeAll(kv, relay.write, [postback("h1")]);
    const worker = relay.run();
    await app.waitFor(1);
    await new Promise((r) => setTimeout(r, 200));
    await worker.stop();
    assert.equal(app.received.length, 1);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay.attempts() answers an id too long for a KV key with no attempts, as deadLetter() and redeliver() do", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    for (const id of ["x".repeat(2_100), "€".repeat(700), `msg_${"0".repeat(4_000)}`]) {
      assert.deepEqual(await relay.attempts(id), []);
      assert.equal(await relay.deadLetter(id), null);
      assert.equal(await relay.redeliver(id), false);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});
