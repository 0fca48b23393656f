// API.md: `listen --forward-to URL [--hook ID]` "adds a destination for the
// hooks named (all when none)", delivers to URL (a localhost URL allowed
// here), "prints one line per attempt, and removes the destination on exit".
// listen_test.ts names a hook; this one names none.

import assert from "node:assert/strict";
import { createReceiver, createRelay, createWebhooks } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { NOW, REF_A, REF_B, SECRET_B, seed, SIGN_B, signA } from "../_receiver.ts";
import { startApp, until } from "../relay/fixtures.ts";

Deno.test("listen without --hook forwards every hook's postbacks, one line per attempt naming its hook", async () => {
  const dir = await Deno.makeTempDir({ prefix: "listen_all_" });
  const kv = await Deno.openKv(`${dir}/webhooks.kv`);
  const app = startApp();
  const relay = createRelay(kv);
  const receiver = createReceiver(createWebhooks(kv), { write: relay.write, now: () => NOW });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, receiver.handle);
  const stop = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  try {
    await seed(createWebhooks(kv));
    const running = main(["listen", "--forward-to", app.url, "--kv", `${dir}/webhooks.kv`], {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      env: () => undefined,
      signal: stop.signal,
    });
    await until(async () => (await relay.destinations.list()).length === 1, 10_000, "the listener's destination");
    const [destination] = await relay.destinations.list();
    assert.equal(destination.hookIds, undefined, "no hookIds: every hook");
    assert.equal(destination.url, app.url, "a localhost URL is allowed for listen's own destination");
    const url = `http://127.0.0.1:${server.addr.port}/hooks`;
    for (const [ref, authorization] of [[REF_A, await signA()], [REF_B, await signA(NOW, SIGN_B, SECRET_B)]]) {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization },
        body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]),
      });
      assert.deepEqual(await res.json(), { received: 1 });
    }
    await app.waitFor(2);
    await until(() => out.length === 2, 5_000, "a line per attempt");
    const hooks = out.map((line) => / {2}(hook-[ab]) {2}200 +\d+ ms {2}msg_\w+$/.exec(line)?.[1]).sort();
    assert.deepEqual(hooks, ["hook-a", "hook-b"], out.join("\n"));
    const sent = app.received.map((r) => JSON.parse(r.body).data.webhook).sort();
    assert.deepEqual(sent, ["hook-a", "hook-b"]);
    stop.abort(); // Ctrl-C
    assert.equal(await running, 0, err.join("\n"));
    assert.deepEqual(await relay.destinations.list(), []);
  } finally {
    stop.abort();
    await server.shutdown();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
