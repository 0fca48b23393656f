/**
 * A `410 Gone` disables the destination and dead-letters the entry; the dead letter's reason says which of the two
 * happened. When the disable is refused (the record hand-edited into junk while the request ran), the destination is
 * left as it was, and the reason must not claim it was disabled.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** One attempt answered 410 after `during` ran; resolves with the dead letters' reasons. */
async function gone(during: (kv: Deno.Kv, destinationId: string) => Promise<void>): Promise<string[]> {
  const kv = await Deno.openKv(":memory:");
  let destinationId = "";
  const app = startApp(async () => {
    await during(kv, destinationId);
    return new Response(null, { status: 410 });
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  try {
    await seedHooks(kv);
    destinationId = (await relay.destinations.add({ url: app.url })).id;
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await until(async () => (await relay.deadLetters()).values.length === 1, 10_000, "the dead letter");
    await worker.stop();
    return (await relay.deadLetters()).values.map((d) => d.reason);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("a 410 that disables the destination says so in the dead letter's reason", async () => {
  assert.deepEqual(await gone(() => Promise.resolve()), ["HTTP 410: the destination was disabled"]);
});

Deno.test("a 410 whose disable is refused (the record damaged meanwhile) does not claim the destination was disabled", async () => {
  const [reason] = await gone(async (kv, id) => {
    await kv.set(["relay_destination", id], { nonsense: 1 }); // hand-edited into junk while the request ran
  });
  assert.doesNotMatch(reason, /was disabled/);
  assert.match(reason, /^HTTP 410: /);
  assert.match(reason, /could not be disabled/);
});
