// API.md, "Command line": `--help` on every command. A command's help is
// given (exit 0, its usage on stdout, nothing on stderr) even when what the
// command needs (its arguments, a required flag) is missing, which is how
// one asks for it; global flags before the command words change nothing.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";

const COMMANDS = [
  "communities list",
  "communities show",
  "communities add",
  "communities remove",
  "hooks list",
  "hooks find",
  "hooks register",
  "hooks unregister",
  "reconcile",
  "receive",
  "migrate",
  "listen",
];

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: () => undefined });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

Deno.test("cli: every command answers --help with its usage and exit 0, its arguments and required flags missing", async () => {
  for (const command of COMMANDS) {
    for (const argv of [[...command.split(" "), "--help"], ["--json", ...command.split(" "), "-h"]]) {
      const { code, stdout, stderr } = await run(argv);
      assert.equal(code, 0, `${argv.join(" ")}: ${stderr}`);
      assert.equal(stderr, "", argv.join(" "));
      assert.ok(stdout.startsWith(`Usage: deno task cli ${command}`), `${argv.join(" ")}: ${stdout.slice(0, 80)}`);
    }
  }
});
