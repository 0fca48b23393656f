// A destination that echoes the request it got (a request inspector, a
// debugging endpoint, an app's error page that prints its input): the
// attempt keeps the first 1 KiB of its answer, and the signature of the
// request must not be kept with it, as no signature reaches `attempts()`
// (shown on the console's delivery page and by `relay attempts`), whether
// the answer is declared or streamed, a failure or not, and whether the
// echo escapes the signature's slashes (PHP's json_encode) or percent-encodes it.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("an answer that echoes the request's webhook-signature is kept without the signature", async () => {
  const kv = await Deno.openKv(":memory:");
  let streamed = false;
  let status = 500;
  const app = startApp((request) => {
    const echo = JSON.stringify({ "webhook-id": request.id, "webhook-signature": request.signature }) +
      `\nsig=${request.signature.slice(3)}` +
      // As PHP's json_encode writes it (a slash escaped), and as a query string or form would carry it.
      `\n${request.signature.slice(3).replaceAll("/", "\\/")}\n${encodeURIComponent(request.signature.slice(3))}`;
    return new Response(streamed ? ReadableStream.from([new TextEncoder().encode(echo)]) : echo, { status });
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const ways = [[false, 500], [true, 500], [false, 200]] as const;
    for (const [i, [stream, answer]] of ways.entries()) {
      [streamed, status] = [stream, answer];
      await writeAll(kv, relay.write, [postback("h1", i)]);
      await app.waitFor(i + 1);
      const { id, signature } = app.received[i];
      let attempts = await relay.attempts(id);
      await until(async () => (attempts = await relay.attempts(id)).length === 1, 5_000, "the attempt");
      const kept = attempts[0].response ?? "";
      const way = `${stream ? "streamed" : "declared"} ${answer}`;
      assert.ok(kept.includes(id), `${way}: the echo is kept (${kept})`);
      const digest = signature.slice(3);
      for (const form of [digest, digest.replaceAll("/", "\\/"), encodeURIComponent(digest)]) {
        assert.ok(!kept.includes(form), `${way}: the signature is kept as ${form}: ${kept}`);
      }
    }
  } finally {
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});
