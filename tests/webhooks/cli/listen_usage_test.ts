// `listen` with a `--forward-to` it cannot use (not a URL, another scheme,
// credentials in it) is a usage error: exit status 2 with the command's
// usage (API.md, command line), no destination left, credentials not echoed.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** Runs the CLI as a process with `args`; resolves with its exit status and stderr. */
async function cli(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const { code, stderr, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr), stdout: new TextDecoder().decode(stdout) };
}

Deno.test("listen as a process: a --forward-to that is no URL, of another scheme or with credentials exits with status 2", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const bad = ["not a url", "ftp://localhost/hooks", "http://user:hunter2@localhost:3000/hooks", "localhost:3000"];
    // Two at once: each ends alike, neither leaves a destination behind.
    const runs = await Promise.all(
      bad.flatMap((url) => [url, url]).map((url) => cli(["listen", "--forward-to", url, "--kv", path])),
    );
    for (const [i, { code, stderr, stdout }] of runs.entries()) {
      const url = bad[Math.floor(i / 2)];
      assert.equal(code, 2, `${url}: ${stderr}`);
      assert.match(stderr, /^Error: --forward-to must /m, url);
      assert.match(stderr, /listen --forward-to URL/, "the command's usage follows");
      assert.doesNotMatch(stderr, /hunter2|\n\s+at /, "no password, no stack trace");
      assert.equal(stdout, "");
    }
    const kv = await Deno.openKv(path);
    const relay = createRelay(kv);
    assert.deepEqual(await relay.destinations.list(), []);
    await relay.close();
    kv.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listen: any --forward-to that is not an http(s) URL is a usage error (status 2), never a failed operation", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const notHttp = fc.string({ unit: "binary", maxLength: 60 }).filter((s) => !/^https?:\/\/[^/]/i.test(s));
    await fc.assert(
      fc.asyncProperty(notHttp, async (url) => {
        const err: string[] = [];
        const stop = new AbortController();
        const io = { stdout: () => {}, stderr: (t: string) => err.push(t), env: () => undefined, signal: stop.signal };
        const code = await main(["listen", "--kv", path, `--forward-to=${url}`], io);
        stop.abort();
        assert.equal(code, 2, `${JSON.stringify(url)}: ${err.join("\n")}`);
      }),
      { numRuns: 150 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
