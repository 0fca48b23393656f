// KV_PATH as the console's start reads it: a KV Connect URL is told from a file by its scheme, as URLs write one in
// any case. `HTTPS://host/db` was taken for a file path: the console made the folders `HTTPS:/host` in its working
// folder and kept everything in a local file there, while the operator meant the shared database; and a file named
// `httpdata.kv` was announced as "a KV Connect database". Both must be what they are.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";
import { untilStartLine } from "./_main_process.ts";
import { endChild } from "../_child.ts";

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const MAIN = new URL("../../console/main.ts", import.meta.url).pathname;

/** Starts the console in `cwd` with `env`; its start line, then ends it. */
async function startLine(cwd: string, env: Record<string, string>): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, MAIN],
    cwd,
    env: { PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    return await untilStartLine(reader);
  } finally {
    const ended = endChild(child, "SIGTERM");
    await reader.cancel();
    await child.stderr.cancel();
    await ended;
  }
}

Deno.test("the console takes KV_PATH=HTTPS://... as a KV Connect URL, and httpdata.kv as a file", async () => {
  const cwd = await Deno.makeTempDir();
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  try {
    const upper = server.url.replace(/^http/, "HTTP");
    const remote = await startLine(cwd, { KV_PATH: upper, DENO_KV_ACCESS_TOKEN: TEST_TOKEN });
    assert.match(remote, /KV: a KV Connect database;/, remote);
    const made = [...Deno.readDirSync(cwd)].map((e) => e.name);
    assert.deepEqual(made, [], "the console made a local file of the KV Connect URL");

    const file = await startLine(cwd, { KV_PATH: "httpdata.kv" });
    assert.match(file, /KV: httpdata\.kv;/, file);
    assert.ok((await Deno.stat(`${cwd}/httpdata.kv`)).isFile);
  } finally {
    await server.close();
    await Deno.remove(cwd, { recursive: true });
  }
});
