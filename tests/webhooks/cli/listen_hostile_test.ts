// `listen` against an app that misbehaves: a `410 Gone` disables a relay
// destination, after which nothing more reaches the app; `listen` says so
// and ends rather than forwarding nothing while it looks alive.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

Deno.test("listen ends with status 1 and a message when the app answers 410 Gone, its destination removed", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp(() => new Response("gone", { status: 410 }));
  const stop = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const running = main(["listen", "--forward-to", app.url, "--kv", path], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: () => undefined,
      signal: stop.signal,
    });
    await until(async () => (await relay.destinations.list()).length === 1, 10_000, "the listener's destination");
    await writeAll(kv, relay.write, [postback("h1")]);
    // Before, listen went on running (until Ctrl-C) with its destination disabled: what came next became dead letters.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<number>((resolve) => timer = setTimeout(() => resolve(-1), 10_000));
    const ended = await Promise.race([running, late]).finally(() => clearTimeout(timer));
    assert.equal(ended, 1, err.join("\n"));
    assert.equal(app.received.length, 1);
    assert.match(out[0], /  h1  410 /);
    const text = err.join("\n");
    assert.match(text, /Removed destination /);
    assert.match(
      err.at(-1)!,
      /^Error: The app answered 410 Gone, which disables a destination: listen stopped; start it again once /,
    );
    assert.doesNotMatch(text + out.join("\n"), /whsec_[A-Za-z0-9+/]/); // the secret generated is not shown
    assert.deepEqual(await relay.destinations.list(), []);
  } finally {
    stop.abort();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
