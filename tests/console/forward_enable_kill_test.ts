// A relay destination enabled again while entries wait for it, the process
// that enables it killed (kill -9) right after the destination's own commit,
// before any kept entry moved back: the console started afterwards on the same
// KV file shows the destination enabled, the user's Enable sent again answers
// without error, and the console's worker delivers each kept entry once.

import assert from "node:assert/strict";
import { csrfOf, signIn } from "./_helpers.ts";
import { startLoggedConsole } from "./_logged_console.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../webhooks/relay/fixtures.ts";

const CHILD = new URL("../webhooks/relay/_enable_child.ts", import.meta.url).pathname;
const N = 30;

/** The enabling process, killed once its `commit 1` line shows (the destination's own commit landed). */
async function enableThenDie(path: string, id: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("../../deno.json", import.meta.url).pathname, CHILD, path, id, "1"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let seen = "";
  try {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      seen += chunk;
      if (/^commit 1$/m.test(seen)) break;
    }
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  assert.match(seen, /^commit 1$/m, `the enabling process printed: ${seen}`);
}

async function countUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix }))).length;
}

Deno.test("Enable sent again to a console started after the enabling process died past the destination's commit delivers every kept entry once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/console.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  let console_ = null;
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    await new Promise((r) => setTimeout(r, 100)); // the writer's list reloads after the add
    await writeAll(
      kv,
      relay.write,
      Array.from({ length: N }, (_, i) => postback("h1", i, `${i}`.padStart(64, "0"))),
      10,
    );
    await relay.destinations.update(destination.id, { enabled: false });
    const parking = relay.run({ concurrency: 4 });
    await until(async () => (await countUnder(kv, ["relay_paused"])) === N, 20_000, "every entry kept");
    await parking.stop();
    await relay.close();

    // The destination's own commit lands; the first move of kept entries is held until the kill.
    await enableThenDie(path, destination.id);
    assert.equal(await countUnder(kv, ["relay_paused"]), N, "the kill came before any entry moved");

    console_ = await startLoggedConsole(path);
    const client = await signIn(console_.url);
    const page = await client.text("/webhooks/h1/forward", 200);
    const retry = await client.post(`/webhooks/h1/forward/${destination.id}/enabled`, {
      _csrf: csrfOf(page),
      enabled: "1",
    });
    await retry.body?.cancel();
    assert.equal(retry.status, 303);
    assert.match(retry.headers.get("location") ?? "", /notice=enabled/);
    await app.waitFor(N, 30_000);
    await until(async () => (await countUnder(kv, ["relay_paused"])) === 0, 10_000, "nothing kept");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(app.received.length, N, "an entry was delivered twice");
  } finally {
    await console_?.kill();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
