// `listen` given Ctrl-C twice: the second skips the wait for the deliveries
// in flight but still removes the listener's pinned destination before the
// process ends, so that no stale destination is left in KV for 10 minutes.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** Resolves with the child's output, or kills it after `ms` and then resolves with what it printed. */
async function endWithin(child: Deno.ChildProcess, ms: number): Promise<Deno.CommandOutput & { late: boolean }> {
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    child.kill("SIGKILL");
  }, ms);
  const output = await child.output().finally(() => clearTimeout(timer));
  return Object.assign(output, { late });
}

Deno.test("listen as a process: a second Ctrl-C while it waits for a delivery in flight still removes its destination", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  let release = () => {};
  const answered = new Promise<void>((resolve) => release = resolve);
  const app = startApp(async () => (await answered, new Response("ok")));
  const relay = createRelay(kv);
  let child: Deno.ChildProcess | null = null;
  try {
    await seedHooks(kv);
    child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tests/webhooks/cli/_listen_held_child.ts", "listen", "--forward-to", app.url, "--kv", path],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).spawn();
    await until(async () => (await relay.destinations.list()).length === 1, 20_000, "the destination");
    const [destination] = await relay.destinations.list();
    await writeAll(kv, relay.write, [postback("h1")]);
    await app.waitFor(1); // a delivery in flight: the app has not answered
    child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 500)); // listen ends its worker: a commit that never lands
    child.kill("SIGINT");
    const { code, stderr, late } = await endWithin(child, 10_000);
    child = null;
    const text = new TextDecoder().decode(stderr);
    assert.equal(late, false, `still running 10 s after the second Ctrl-C:\n${text}`);
    assert.equal(code, 130, text);
    // Before, the second Ctrl-C closed the KV and exited, leaving the destination for 10 minutes.
    assert.deepEqual(await relay.destinations.list(), [], "the destination is left behind");
    assert.match(text, /Interrupted again: not waiting for the deliveries in flight; removing destination /, text);
    assert.match(text, new RegExp(`Removed destination ${destination.id}`), text);
  } finally {
    try {
      child?.kill("SIGKILL");
      await child?.output();
    } catch {
      // exited
    }
    release();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen as a process ends on SIGTERM (a process manager's or docker's stop) as on Ctrl-C, its destination removed", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp();
  const relay = createRelay(kv);
  try {
    await seedHooks(kv);
    for (const signal of ["SIGTERM"] as const) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "webhooks/cli.ts", "listen", "--forward-to", app.url, "--kv", path],
        cwd: ROOT,
        env: { NO_COLOR: "1" },
        stdout: "null",
        stderr: "piped",
      }).spawn();
      await until(async () => (await relay.destinations.list()).length === 1, 20_000, "the destination");
      child.kill(signal);
      const { code, stderr, late } = await endWithin(child, 10_000);
      const text = new TextDecoder().decode(stderr);
      // Before: ended by the signal at once (status 143), the destination left in KV for 10 minutes.
      assert.equal(late, false, text);
      assert.deepEqual(await relay.destinations.list(), [], `${signal}: the destination is left behind`);
      assert.equal(code, 0, `${signal}: ${text}`);
      assert.match(text, /Removed destination /);
    }
  } finally {
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
