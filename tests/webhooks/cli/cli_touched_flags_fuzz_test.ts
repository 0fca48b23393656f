// `hooks list --tenant`, `reconcile` and `hooks unregister` given any argument from outside: control characters,
// binary and grapheme strings, 10,000 characters, lone surrogates, empty values, `--`-prefixed values and unknown
// flags, before and after the words, with --fix and --delete-unknown or not. Every run ends 0, 1 or 2, never with a
// stack trace; a failure says what was wrong (`Error: ...`); no output holds a secret; nothing stored changes (the
// tenant index holds damaged entries the listing names, and the community's reconcile finds no drift to fix).

import assert from "node:assert/strict";
import fc from "fast-check";
import { endedCleanly, runMain, snapshot } from "./_relay_setup.ts";
import { ACCESS, addAcme, REFRESH, SECRET } from "./_cli_setup.ts";
import { startPlatform } from "../platform.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
const whole = (id: string) => ({ id, tenantId: "t1", entity: { events: ["a"] } });

Deno.test("cli hooks list --tenant, reconcile and hooks unregister: any argument ends 0, 1 or 2, says what was wrong, changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_touched_fuzz_" });
  const path = `${dir}/webhooks.kv`;
  const platform = await startPlatform({ clientSecret: SECRET });
  const kv = await Deno.openKv(path);
  try {
    const added = await runMain(addAcme(path, platform.url), env);
    assert.equal(added.code, 0, added.err);
    const index = (id: string) => ["webhook_by_tenant", "t1", id];
    await kv.atomic().set(["webhook", "h1"], whole("h1")).set(index("h1"), whole("h1")).set(index("h2"), whole("h2"))
      .set(index("h3"), 42).set(index("h4"), "h4").commit();
    const before = await snapshot(kv);

    const value = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.constantFrom("x".repeat(10_000), "t1", "tenant-acme", "Acme", "h1", "h2", "\ud800", "a\u0000b", "", " "),
      fc.constantFrom("--json", "-h", "--kv=", "--tenant=", "--fix=yes", "--delete-unknown=", "--", "-"),
      fc.string({ maxLength: 20 }).map((s) => `--${s}`),
    );
    const json = fc.constantFrom<string[]>([], ["--json"]);
    const fix = fc.constantFrom<string[]>([], ["--fix"], ["--fix", "--delete-unknown"], ["--delete-unknown"]);
    const argv = fc.oneof(
      fc.tuple(json, value, json).map(([a, v, b]) => [...a, "hooks", "list", "--tenant", v, ...b]),
      fc.tuple(json, value).map(([a, v]) => ["hooks", "list", `--tenant=${v}`, ...a]),
      fc.tuple(json, value, fix).map(([a, v, f]) => [...a, "reconcile", v, ...f]),
      fc.tuple(json, fix, fc.array(value, { maxLength: 1 })).map((
        [a, f, rest],
      ) => ["reconcile", "Acme", ...f, ...rest, ...a]),
      fc.tuple(fix, fc.array(value, { maxLength: 3 })).map(([f, rest]) => ["reconcile", ...f, ...rest]),
      fc.tuple(json, fc.array(value, { maxLength: 3 })).map(([a, rest]) => ["hooks", "unregister", ...rest, ...a]),
      fc.tuple(fc.array(value, { maxLength: 2 }), fc.constantFrom(["hooks", "list"], ["reconcile"]), fc.array(value))
        .map(([first, words, rest]) => [...first, ...words, ...rest]),
    );
    await fc.assert(
      fc.asyncProperty(argv, async (argv) => {
        const ran = await runMain([...argv, "--kv", path], env);
        const what = endedCleanly(argv, ran);
        for (const secret of [SECRET, ACCESS, REFRESH]) {
          assert.ok(!ran.out.includes(secret) && !ran.err.includes(secret), `${what} printed a secret`);
        }
        assert.deepEqual(await snapshot(kv), before, `${what} changed what is stored`);
      }),
      { numRuns: 300 },
    );
  } finally {
    kv.close();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
