// The `relay` commands given any argument from outside: control characters,
// 10,000 characters, lone surrogates, `--`-prefixed values, ids one character
// off a real dead letter's, repeated flags, flags before and after the words.
// Every run ends 0, 1 or 2, never with a stack trace; a failure says on stderr
// what was wrong (`Error: ...`); no output holds the destination's secret; and
// nothing stored changes (no id given is a dead letter's, so none is sent).

import assert from "node:assert/strict";
import fc from "fast-check";
import { endedCleanly, nearId, noSecret, snapshot, withDeadLetters } from "./_relay_setup.ts";

Deno.test("cli relay: any argument ends 0, 1 or 2, says what was wrong, shows no secret and changes nothing", async () => {
  await withDeadLetters(2, async ({ run, kv, dead, destination }) => {
    const before = await snapshot(kv);
    const value = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.constantFrom("x".repeat(10_000), `msg_${"0".repeat(26)}`, destination.id, "--json", "-h", "--kv=x", ""),
      fc.string({ maxLength: 20 }).map((s) => `--${s}`),
      nearId(dead[0].id),
      nearId(dead[1].id),
    );
    const words = fc.constantFrom(["destinations"], ["dead-letters"], ["attempts"], ["redeliver"], ["bogus"], []);
    const piece = fc.oneof(
      value.map((v) => [v]),
      value.map((v) => ["--destination", v]),
      value.map((v) => [`--destination=${v}`]),
      fc.constant(["--json"]),
    );
    const json = fc.constantFrom([], ["--json"]);
    // Commands of the right shape (so most runs get past the parser to the store) and any shape at all.
    const argv = fc.oneof(
      fc.tuple(json, value, json).map(([a, v, b]) => [...a, "relay", "attempts", v, ...b]),
      fc.tuple(json, fc.array(value, { minLength: 1, maxLength: 3 })).map((
        [a, ids],
      ) => ["relay", "redeliver", ...ids, ...a]),
      fc.tuple(json, value).map(([a, v]) => ["relay", ...a, "dead-letters", "--destination", v]),
      fc.tuple(fc.array(piece, { maxLength: 2 }), words, fc.array(piece, { maxLength: 4 }))
        .map(([first, w, rest]) => [...first.flat(), "relay", ...w, ...rest.flat()]),
    );
    await fc.assert(
      fc.asyncProperty(argv, async (argv) => {
        const ran = await run(argv);
        const what = endedCleanly(argv, ran);
        noSecret(ran, destination.secret);
        assert.deepEqual(await snapshot(kv), before, `${what} changed what is stored`);
      }),
      { numRuns: 200 },
    );
  });
});
