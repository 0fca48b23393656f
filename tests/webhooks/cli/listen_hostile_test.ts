// `listen` when its destination stops taking postbacks: an app that answers
// `410 Gone` (which disables a relay destination), or the destination removed
// or disabled elsewhere (the console). Nothing more would reach the app, so
// listen says why and ends, rather than run on forwarding nothing.

import assert from "node:assert/strict";
import { createRelay, type Relay } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { type App, postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";
import { startListen } from "./_listen_setup.ts";

/** Runs listen on a KV file until `act` is done and listen ends; resolves with its status, stdout and stderr. */
async function listenUntilEnd(
  answer: () => Response,
  act: (ctx: { kv: Deno.Kv; relay: Relay; id: string; app: App }) => Promise<void>,
): Promise<{ code: number; out: string[]; err: string[] }> {
  const listen = await startListen(answer);
  try {
    const { kv, relay, id, app, out, err } = listen;
    await act({ kv, relay, id, app });
    // Before, listen ran on (until Ctrl-C) with its destination disabled or gone, forwarding nothing.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<number>((resolve) => timer = setTimeout(() => resolve(-1), 10_000));
    const code = await Promise.race([listen.running, late]).finally(() => clearTimeout(timer));
    assert.equal(code, 1, err.join("\n"));
    assert.deepEqual(await relay.destinations.list(), []);
    assert.doesNotMatch(err.join("\n") + out.join("\n"), /whsec_[A-Za-z0-9+/]/); // the secret generated is not shown
    return { code, out, err };
  } finally {
    await listen.close();
  }
}

Deno.test("listen ends with status 1 and says why when the app answers 410 Gone, its destination removed", async () => {
  const { out, err } = await listenUntilEnd(() => new Response("gone", { status: 410 }), async ({ kv, relay, app }) => {
    await writeAll(kv, relay.write, [postback("h1")]);
    await app.waitFor(1);
  });
  assert.match(out[0], / {2}h1 {2}410 /);
  assert.match(err.at(-2)!, /^Removed destination /);
  assert.match(
    err.at(-1)!,
    /^Error: The app answered 410 Gone, which disables a destination: listen stopped; start it again once /,
  );
});

Deno.test("listen ends with status 1 when its destination is removed or disabled elsewhere", async () => {
  const ok = () => new Response("ok");
  const removed = await listenUntilEnd(ok, async ({ relay, id }) => void await relay.destinations.remove(id));
  assert.match(removed.err.at(-1)!, /^Error: This listener's destination was removed elsewhere \(the console, say\)/);
  // Not "Removed destination ...": listen did not remove it, and the line read as if it had.
  assert.deepEqual(removed.err.filter((line) => /^Removed destination /.test(line)), []);
  const disabled = await listenUntilEnd(ok, async ({ relay, id }) => {
    await relay.destinations.update(id, { enabled: false });
  });
  assert.match(disabled.err.at(-1)!, /^Error: This listener's destination was disabled elsewhere/);
  assert.match(disabled.err.at(-2)!, /^Removed destination /);
});

Deno.test("listen as a process: a second Ctrl-C ends it when its KV is out of reach and the removal would never return", async () => {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  const app = startApp();
  let child: Deno.ChildProcess | null = null;
  try {
    await seedHooks(kv);
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "listen", "--forward-to", app.url, "--kv", server.url],
      cwd: new URL("../../../", import.meta.url).pathname,
      env: { NO_COLOR: "1", DENO_KV_ACCESS_TOKEN: TEST_TOKEN },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const relay = createRelay(kv);
    await until(async () => (await relay.destinations.list()).length === 1, 20_000, "the destination");
    await relay.close();
    kv.close();
    await server.close(); // the laptop lost the network: Deno's KV Connect client retries for good
    const output = child.output();
    let exited = false;
    output.then(() => exited = true, () => exited = true);
    // Ctrl-C, then again, until it ends (before, every Ctrl-C after the first was ignored: only kill -9 ended it).
    for (let i = 0; i < 100 && !exited; i++) {
      child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!exited) child.kill("SIGKILL");
    const { code, stderr } = await output;
    child = null;
    assert.equal(code, 130);
    assert.match(new TextDecoder().decode(stderr), /Interrupted again: the destination is left for a relay worker/);
  } finally {
    try {
      child?.kill("SIGKILL");
      await child?.output();
    } catch {
      // exited
    }
    await app.close();
    try {
      kv.close();
    } catch {
      // closed
    }
    await server.close().catch(() => {});
  }
});
