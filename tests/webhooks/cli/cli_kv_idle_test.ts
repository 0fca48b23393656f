// The KV Connect limit (KV_TIMEOUT_SECONDS) is on each operation that has not
// answered, not on the command: `receive` and `listen` on a healthy but idle
// KV run on past it, and end on Ctrl-C with status 0 as before. A value that
// is no number of seconds above 0 (up to a day) is a usage error.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { seed } from "../_receiver.ts";
import { startApp, until } from "../relay/fixtures.ts";

/** The limit given: 1 s. Each command is left idle well past it (IDLE_MS) before Ctrl-C. */
const LIMIT_SECONDS = "1";
const IDLE_MS = 3_000;

/** Runs `argv` against a fresh KV Connect server until `ready`, idles past the limit, then Ctrl-C. */
async function idlePastLimit(argv: string[], ready: (err: string[], kv: Deno.Kv) => Promise<boolean>) {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  const stop = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  try {
    await seed(createWebhooks(kv));
    let ended = false;
    const running = main([...argv, "--kv", server.url], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: (name) => name === "KV_TIMEOUT_SECONDS" ? LIMIT_SECONDS : Deno.env.get(name),
      signal: stop.signal,
    }).finally(() => ended = true);
    await until(() => ready(err, kv), 10_000, `${argv[0]} ready`);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    assert.equal(ended, false, `${argv[0]} ended on an idle KV: ${err.join("\n")}`);
    assert.ok(!err.some((line) => line.startsWith("Error:")), err.join("\n"));
    stop.abort(); // Ctrl-C
    assert.equal(await running, 0, err.join("\n"));
  } finally {
    stop.abort();
    kv.close();
    await server.close();
  }
}

Deno.test("cli receive on an idle KV Connect KV runs past KV_TIMEOUT_SECONDS and ends on Ctrl-C with 0", async () => {
  await idlePastLimit(
    ["receive", "--port", "0"],
    (err) => Promise.resolve(err.some((line) => line.startsWith("Receiving postbacks on "))),
  );
});

Deno.test("cli listen on an idle KV Connect KV runs past KV_TIMEOUT_SECONDS and ends on Ctrl-C with 0", async () => {
  const app = startApp();
  try {
    await idlePastLimit(
      ["listen", "--forward-to", app.url, "--hook", "hook-a"],
      (err) => Promise.resolve(err.some((line) => line.startsWith("Forwarding postbacks of "))),
    );
  } finally {
    await app.close();
  }
});

Deno.test("cli refuses a KV_TIMEOUT_SECONDS that is no number of seconds above 0 with --kv a URL (status 2)", async () => {
  for (const bad of ["0", "-1", "abc", "1e3", "86401"]) {
    const err: string[] = [];
    const code = await main(["communities", "list", "--kv", "http://127.0.0.1:9"], {
      stdout: () => {},
      stderr: (t) => err.push(t),
      env: (name) => name === "KV_TIMEOUT_SECONDS" ? bad : undefined,
    });
    assert.equal(code, 2, err.join("\n"));
    assert.equal(
      err[0],
      `Error: KV_TIMEOUT_SECONDS must be a number of seconds above 0 and up to 86,400, got '${bad}'`,
    );
  }
});
