// `listen` whose stdout's reader is gone (`listen ... | head -1`): the line of
// an attempt cannot be printed, so listen stops as on Ctrl-C, removing its
// destination, and ends quietly with 0. Before, the relay worker swallowed the
// failed print and listen forwarded on, printing nowhere, until stopped.

import assert from "node:assert/strict";
import { createReceiver, createRelay, createWebhooks, type Relay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { NOW, REF_A, seed, signA } from "../_receiver.ts";
import { type App, startApp, until } from "../relay/fixtures.ts";

/** What a listen whose stdout throws BrokenPipe did with one postback forwarded to an app answering `answer`. */
interface GoneReaderRun {
  /** listen's exit status. */
  running: Promise<number>;
  /** What it said on stderr so far. */
  err: string[];
  relay: Relay;
  app: App;
}

/**
 * Runs `listen --hook hook-a` on a KV file with a stdout whose reader is gone, receives one signed postback for
 * hook-a through a receiver that relays it, and hands the run to `check`; everything is stopped and removed after.
 */
async function withGoneReader(answer: (() => Response) | undefined, check: (run: GoneReaderRun) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp(answer);
  const relay = createRelay(kv);
  const receiver = createReceiver(createWebhooks(kv), { write: relay.write, now: () => NOW });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, receiver.handle);
  const stop = new AbortController();
  const err: string[] = [];
  try {
    await seed(createWebhooks(kv));
    const running = main(["listen", "--forward-to", app.url, "--hook", "hook-a", "--kv", path], {
      stdout: () => {
        throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
      },
      stderr: (t) => err.push(t),
      env: () => undefined,
      signal: stop.signal,
    });
    await until(async () => (await relay.destinations.list()).length === 1, 10_000, "the listener's destination");
    const posted = await fetch(`http://127.0.0.1:${server.addr.port}/hooks`, {
      method: "POST",
      headers: { authorization: await signA(), "content-type": "application/json" },
      body: JSON.stringify([{ webhook: REF_A, activity: { verb: "jive:created" } }]),
    });
    assert.equal(posted.status, 200, await posted.text());
    await check({ running, err, relay, app });
  } finally {
    stop.abort();
    await server.shutdown();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("listen whose stdout's reader is gone stops after the attempt, removes its destination and ends with 0", async () => {
  await withGoneReader(undefined, async ({ running, err, relay, app }) => {
    let ended: number | null = null;
    running.then((code) => ended = code);
    await app.waitFor(1);
    // Bounded: before, listen forwarded on (no Ctrl-C comes here) and never ended.
    await until(() => ended !== null, 10_000, "listen to end once its line could not be printed");
    assert.equal(await running, 0, err.join("\n"));
    assert.doesNotMatch(err.join("\n"), /Broken pipe|Error/);
    assert.deepEqual(await relay.destinations.list(), []);
  });
});

Deno.test("listen whose unprintable attempt was a 410 Gone still ends with 1 and says the destination was disabled", async () => {
  await withGoneReader(() => new Response("gone", { status: 410 }), async ({ running, err }) => {
    // The reader is gone, but the app's 410 disabled the destination: a failure the reader did not choose, and the
    // only word of it (its attempt line was never printed), so not hidden behind a quiet 0.
    assert.equal(await running, 1, err.join("\n"));
    assert.match(err.join("\n"), /answered 410 Gone/);
    assert.doesNotMatch(err.join("\n"), /Broken pipe/);
  });
});
