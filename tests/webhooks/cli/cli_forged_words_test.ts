// An unknown command word or option name holding a line break or a control character is said on one line, its
// characters as escapes: it cannot forge a line of its own ("Error: ..." or anything) on stderr, as the values of
// flags and the ids given already cannot.

import assert from "node:assert/strict";
import { endedCleanly, runMain } from "./_relay_setup.ts";

const FORGED = "x\nError: forged\u001b[2K\r\u2028y";

Deno.test("an unknown command or option with a line break in it says one line naming it, escaped", async () => {
  const runs: [string[], RegExp][] = [
    [[FORGED], /^Error: Unknown command 'x\\nError: forged\\u001b\[2K\\r\\u2028y'$/],
    [["hooks", FORGED], /^Error: Unknown command 'hooks x\\nError: forged\\u001b\[2K\\r\\u2028y'$/],
    [["hooks", "list", `--${FORGED}`], /^Error: Unknown option '--x\\nError: forged\\u001b\[2K\\r\\u2028y'$/],
    [["migrate", `--${FORGED}=1`], /^Error: Unknown option '--x\\nError: forged\\u001b\[2K\\r\\u2028y'$/],
  ];
  for (const [argv, first] of runs) {
    const ran = await runMain([...argv, "--kv", ":memory:"]);
    const what = endedCleanly(argv, ran);
    assert.equal(ran.code, 2, what);
    const lines = ran.err.split("\n");
    assert.match(lines[0], first, what);
    assert.ok(!lines.slice(1).some((l) => l.includes("forged")), `${what}: a line forged: ${ran.err}`);
  }
});
