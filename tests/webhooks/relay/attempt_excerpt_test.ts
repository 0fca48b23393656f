// API.md: relay.attempts() gives "the first 1 KiB of the response". A cut
// that falls inside a multi-byte UTF-8 character keeps the whole characters
// before it: no U+FFFD that the app never sent, never more than 1,024 bytes.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

// 1 + 2 × 2,000 bytes: the 1,024th byte is the first half of an "é".
const ANSWER = "a" + "é".repeat(2_000);
const bytes = new TextEncoder().encode(ANSWER);

Deno.test("an attempt keeps the first 1 KiB of the answer in whole characters, declared or streamed", async () => {
  const kv = await Deno.openKv(":memory:");
  let streamed = false;
  const app = startApp(() =>
    streamed
      ? new Response(
        new ReadableStream({
          start(c) {
            for (let i = 0; i < bytes.length; i += 100) c.enqueue(bytes.slice(i, i + 100));
            c.close();
          },
        }),
      )
      : new Response(ANSWER)
  );
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    for (const [i, way] of ["declared", "streamed"].entries()) {
      streamed = way === "streamed";
      await writeAll(kv, relay.write, [postback("h1", i)]);
      await app.waitFor(i + 1);
      const id = app.received[i].id;
      let attempts = await relay.attempts(id);
      await until(async () => (attempts = await relay.attempts(id)).length === 1, 5_000, "the attempt");
      const kept = attempts[0].response ?? "";
      assert.ok(!kept.includes("\uFFFD"), `${way}: no replacement character`);
      assert.ok(new TextEncoder().encode(kept).length <= 1_024, `${way}: at most 1 KiB`);
      assert.equal(kept, "a" + "é".repeat(511), way);
    }
    await worker.stop();
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
