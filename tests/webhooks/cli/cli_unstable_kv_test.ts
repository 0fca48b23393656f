// The published command line runs as `deno run -A jsr:@community-webhooks/sdk/cli`: a package's own deno.json does not
// apply there, so Deno KV is off unless the run gives `--unstable-kv`, and `Deno.openKv` is then missing. A newcomer
// who copies the command is told what to add, not only that `Deno.openKv is not a function`. (This process runs with
// KV on; the test takes `Deno.openKv` away for the call, as a run without the flag has it.)

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli.ts";

Deno.test("without --unstable-kv the CLI fails with status 1 and says to run it with --unstable-kv", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: () => undefined };
  const openKv = Deno.openKv;
  Object.defineProperty(Deno, "openKv", { value: undefined, configurable: true, writable: true });
  let code: number;
  try {
    code = await main(["hooks", "list", "--kv", ":memory:"], io);
  } finally {
    Object.defineProperty(Deno, "openKv", { value: openKv, configurable: true, writable: true });
  }
  assert.equal(code, 1);
  assert.deepEqual(out, []);
  assert.equal(err.length, 1, err.join("\n"));
  assert.match(err[0], /^Error: /);
  assert.match(err[0], /--unstable-kv/);
  assert.match(err[0], /deno run -A --unstable-kv jsr:@community-webhooks\/sdk\/cli/);
});
