// `listen` without --kv reads ./webhooks.kv (or $KV_PATH): a newcomer who runs it beside a console started with no
// configuration (whose KV is .data/console.kv) gets "Forwarding postbacks of every hook" and then nothing, ever. On a
// KV with no webhook, listen says so on stderr and how to give the console's KV, and goes on listening (a hook
// registered later is forwarded all the same).

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { startApp, until } from "../relay/fixtures.ts";

/** Runs listen on an empty KV file named `name` in a temporary folder; what it said of the empty KV, and the path. */
async function emptyKvLine(name: string): Promise<{ line: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "listen_empty_" });
  const path = `${dir}/${name}`;
  const kv = await Deno.openKv(path);
  const app = startApp();
  const relay = createRelay(kv);
  const stop = new AbortController();
  const err: string[] = [];
  try {
    const running = main(["listen", "--forward-to", app.url, "--kv", path], {
      stdout: () => {},
      stderr: (t: string) => err.push(t),
      env: () => undefined,
      signal: stop.signal,
    });
    await until(async () => (await relay.destinations.list()).length === 1, 10_000, "the listener's destination");
    await until(() => err.some((line) => /no webhook/i.test(line)), 5_000, `a word on the empty KV: ${err.join("\n")}`);
    const line = err.find((l) => /no webhook/i.test(l))!;
    assert.equal((await relay.destinations.list()).length, 1, "it goes on listening");
    stop.abort(); // Ctrl-C
    assert.equal(await running, 0, err.join("\n"));
    assert.deepEqual(await relay.destinations.list(), []);
    return { line, path };
  } finally {
    stop.abort();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("listen on a KV with no webhook says so and names the console's KV file, and still listens", async () => {
  const { line, path } = await emptyKvLine("webhooks.kv");
  assert.ok(line.includes(path), line);
  assert.match(line, /--kv \.data\/console\.kv/);
});

Deno.test("listen's word on an empty KV shows a KV path's control characters escaped, not sent to the terminal", async () => {
  const { line } = await emptyKvLine("red\x1b[31m\nname.kv");
  assert.ok(!line.includes("\x1b") && !line.includes("\n"), JSON.stringify(line));
  assert.ok(line.includes("red\\u001b[31m"), line);
});
