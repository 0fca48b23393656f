// The CLI's library face, `main(argv, io)` (deno.json's `./cli` export), misused from code: argv not an array of
// strings (a string, an array holding undefined, a number or a Symbol) rejected with errors that named nothing
// ('The "args" argument must be an instance of Array', "Cannot read properties of undefined (reading 'length')",
// "Cannot convert a Symbol value to a string"); an io that is not an object of functions made main answer 1 with
// nothing said anywhere. Each is a TypeError naming 'argv' or 'io', before any KV is opened.

import assert from "node:assert/strict";
import fc from "fast-check";
import { main } from "../../../webhooks/cli.ts";

const lines: string[] = [];
const io = {
  stdout: (t: string) => void lines.push(t),
  stderr: (t: string) => void lines.push(t),
  env: () => undefined,
};

const badItem = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, 0, Number.NaN, true, {}, ["hooks"], 1n),
  fc.constant(null).map(() => Symbol("argv item")),
);

const badArgv = fc.oneof(
  fc.constantFrom<unknown>("hooks list", 42, {}, new Set(["hooks"]), true),
  fc.tuple(fc.array(fc.constantFrom("hooks", "list", "--json")), badItem, fc.array(fc.constantFrom("--kv", "x")))
    .map(([before, item, after]) => [...before, item, ...after]),
);

Deno.test("main() rejects an argv that is not an array of strings with a TypeError naming 'argv'", async () => {
  await fc.assert(
    fc.asyncProperty(badArgv, async (argv) => {
      lines.length = 0;
      await assert.rejects(
        main(argv as never, io),
        (error: Error) =>
          error instanceof TypeError && /^Cannot run the CLI: 'argv' must be an array of strings/.test(error.message),
      );
    }),
    { numRuns: 60 },
  );
});

Deno.test("main() rejects an io that is not an object with stdout, stderr and env functions, naming 'io'", async () => {
  const ios: unknown[] = [5, "io", null, [], { ...io, stdout: null }, { ...io, stderr: "x" }, { ...io, env: {} }];
  for (const bad of ios) {
    await assert.rejects(
      main(["communities", "list", "--kv", ":memory:"], bad as never),
      (error: Error) => error instanceof TypeError && /^Cannot run the CLI: 'io' must be /.test(error.message),
    );
  }
  // Absent, io is the process's own, and a good one still works.
  lines.length = 0;
  assert.equal(await main(["communities", "list", "--kv", ":memory:", "--json"], io), 0);
  assert.deepEqual(lines, ["[]"]);
});
