// The command line whose reader went away (`deno task cli --help | head -0`,
// a pager quit early): a write to the closed pipe fails, and main still ends
// as its JSDoc and API.md say, with its status and no stack trace, rather
// than throwing out of main.

import assert from "node:assert/strict";
import { ROOT } from "./_cli_setup.ts";

/** Runs the CLI with its stdout or stderr closed before it writes; resolves with its status and the other stream. */
async function withClosed(stream: "stdout" | "stderr", args: string[]): Promise<{ code: number; other: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await child[stream].cancel(); // the reader is gone
  const other = await new Response(child[stream === "stdout" ? "stderr" : "stdout"]).text();
  const { code } = await child.status;
  return { code, other };
}

Deno.test("cli --help and a usage error end quietly, with 0 and 2, and no stack trace when their output's reader is gone", async () => {
  const help = await withClosed("stdout", ["--help"]);
  // Before: "error: Uncaught (in promise) BrokenPipe" and its stack on stderr, thrown out of main. The reader chose
  // to stop: nothing is said and the status is 0 (cli_reader_gone_test.ts).
  assert.equal(help.other, "");
  assert.equal(help.code, 0);
  const usage = await withClosed("stderr", ["hooks", "list", "--bogus"]);
  assert.equal(usage.code, 2);
  assert.equal(usage.other, "");
});
