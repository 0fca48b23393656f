// The command line whose reader went away (`deno task cli --help | head -0`,
// a pager quit early): a write to the closed pipe fails, and main still ends
// as its JSDoc and API.md say, with its status and no stack trace, rather
// than throwing out of main.

import assert from "node:assert/strict";
import { withClosed } from "./_cli_setup.ts";

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
