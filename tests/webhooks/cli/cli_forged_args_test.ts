// Arguments a command does not take, holding a line break or a control character, are named on the one line that
// refuses them, escaped: they cannot forge a line of their own on stderr.

import assert from "node:assert/strict";
import { endedCleanly, runMain } from "./_relay_setup.ts";

Deno.test("arguments a command does not take are named escaped, on one line", async () => {
  const argv = ["hooks", "list", "x\nError: forged\u001b[2K", "y"];
  const ran = await runMain([...argv, "--kv", ":memory:"]);
  const what = endedCleanly(argv, ran);
  assert.equal(ran.code, 2, what);
  const lines = ran.err.split("\n");
  assert.equal(lines[0], "Error: 'hooks list' takes no arguments, got 'x\\nError: forged\\u001b[2K' 'y'", what);
  assert.ok(!lines.slice(1).some((l) => l.includes("forged")), `${what}: a line forged: ${ran.err}`);
});
