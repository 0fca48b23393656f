// `relay enable`, `relay disable` and `relay remove` given any ID from outside:
// control characters, 10,000 characters, lone surrogates, `--`-prefixed
// values, ids one character off the real destination's, a well-formed id that
// names none. Every run ends 0, 1 or 2, never with a stack trace; a malformed
// id is a usage error (2) and a well-formed unknown one a failure (1); no
// output holds the secret; and nothing stored changes (no id given is the
// destination's, so none is enabled, disabled or removed).

import assert from "node:assert/strict";
import fc from "fast-check";
import { endedCleanly, nearId, noSecret, snapshot, withDeadLetters } from "./_relay_setup.ts";

const DESTINATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

Deno.test("cli relay enable|disable|remove: any ID ends 0, 1 or 2, shows no secret and changes nothing", async () => {
  await withDeadLetters(1, async ({ run, kv, destination }) => {
    const before = await snapshot(kv);
    const id = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.constantFrom("x".repeat(10_000), "0".repeat(26), destination.id.toLowerCase(), `msg_${destination.id}`, ""),
      fc.string({ maxLength: 20 }).map((s) => `--${s}`),
      nearId(destination.id),
    ).filter((v) => v !== destination.id);
    const argv = fc.tuple(
      fc.constantFrom("enable", "disable", "remove"),
      id,
      fc.constantFrom([], ["--json"]),
      fc.boolean(),
    ).map(([command, v, json, after]) => after ? ["relay", command, v, ...json] : [...json, "relay", command, v]);
    await fc.assert(
      fc.asyncProperty(argv, async (argv) => {
        const ran = await run(argv);
        const what = endedCleanly(argv, ran);
        const value = argv.at(argv[0] === "relay" ? 2 : -1)!;
        if (!value.startsWith("-")) {
          assert.equal(ran.code, DESTINATION_ID.test(value) ? 1 : 2, `${what}: ${ran.err}`);
        }
        noSecret(ran, destination.secret);
        assert.deepEqual(await snapshot(kv), before, `${what} changed what is stored`);
      }),
      { numRuns: 200 },
    );
  });
});
