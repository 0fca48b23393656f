// main(argv, io) given a revoked Proxy as argv or io, or an io whose stdout getter throws: its argument check itself
// threw JavaScript's words ("Cannot perform 'IsArray' on a proxy that has been revoked", "... 'get' ...") or the
// getter's own error, naming neither 'argv' nor 'io', as r37 fixed for the library's describe(). Each is a
// TypeError naming the argument, before any KV is opened (none is made in the working folder).

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli.ts";

const io = { stdout: () => {}, stderr: () => {}, env: () => undefined };

function revoked<T extends object>(target: T): T {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

Deno.test("main() refuses a revoked Proxy as argv or io, or an io whose field cannot be read, naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "main_revoked_" });
  const cwd = Deno.cwd();
  Deno.chdir(dir);
  try {
    const cases: Array<[unknown, unknown, RegExp]> = [
      [revoked([]), io, /^Cannot run the CLI: 'argv' must be an array of strings, got /],
      [["hooks", "list"], revoked({}), /^Cannot run the CLI: 'io' must be an object with the functions stdout/],
      [
        ["hooks", "list"],
        {
          ...io,
          get stdout() {
            throw new Error("a getter's own failure");
          },
        },
        /^Cannot run the CLI: 'io' must be an object with the functions stdout/,
      ],
    ];
    for (const [argv, given, message] of cases) {
      await assert.rejects(
        () => main(argv as string[], given as typeof io),
        (error: Error) => {
          assert.ok(error instanceof TypeError, `${error.name}: ${error.message}`);
          assert.match(error.message, message);
          return true;
        },
      );
    }
    assert.deepEqual([...Deno.readDirSync(dir)], [], "a KV was opened");
  } finally {
    Deno.chdir(cwd);
    await Deno.remove(dir, { recursive: true });
  }
});
