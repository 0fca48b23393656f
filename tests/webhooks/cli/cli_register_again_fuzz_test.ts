// `hooks register` given any flag values, `--again` among them, with a registration of one callback left unfinished
// (the platform's answer to its POST held no webhook: the hook may exist, its entry stays). `--again` is a boolean
// flag: `--again=x` is a usage error (status 2, naming --again) as `--fix=x` is, registering nothing. Every run ends
// 0, 1 or 2 with no stack trace and no secret; a run that fails changes nothing stored and makes no hook; the
// unfinished registration's request made again without `--again` is refused with status 1 and says so.

import assert from "node:assert/strict";
import fc from "fast-check";
import { endedCleanly, runMain, snapshot } from "./_relay_setup.ts";
import { ACCESS, addAcme, REFRESH, SECRET } from "./_cli_setup.ts";
import { startPlatform } from "../platform.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
const LEFT = "https://me.example/left";

Deno.test("cli hooks register: any flag values and --again end 0, 1 or 2; --again=x is a usage error; a failure changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_register_again_fuzz_" });
  const path = `${dir}/webhooks.kv`;
  const platform = await startPlatform({ clientSecret: SECRET });
  const kv = await Deno.openKv(path);
  try {
    const added = await runMain(addAcme(path, platform.url, false), env);
    assert.equal(added.code, 0, added.err);
    const register = ["hooks", "register", "--community", "Acme", "--events", "user_account", "--callback"];
    platform.override = (req, url) =>
      req.method === "POST" && url.pathname.endsWith("/api/core/v3/webhooks") ? Response.json([]) : undefined;
    const lost = await runMain([...register, LEFT, "--kv", path], env);
    assert.equal(lost.code, 1, lost.out);
    platform.override = undefined;

    const value = fc.oneof(
      fc.string({ unit: "binary", maxLength: 30 }),
      fc.constantFrom("", " ", "x", "true", "false", "1", "0", "--json", "\ud800", "a\nb", "x".repeat(5_000)),
      fc.constantFrom(LEFT, "https://me.example/other", "Acme", "user_account", "user_account,user_membership"),
    );
    const flag = fc.oneof(
      fc.constant(["--again"]),
      value.map((v) => [`--again=${v}`]),
      fc.constantFrom(["--json"], ["--object", "https://x.example/p/1"], ["--events", "user_membership"]),
      fc.tuple(fc.constantFrom("--community", "--events", "--object", "--callback", "--again"), value)
        .map(([f, v]) => [f, v]),
    );
    const argv = fc.tuple(fc.array(flag, { maxLength: 2 }), fc.boolean(), fc.array(flag, { maxLength: 3 }))
      .map((
        [first, left, flags],
      ) => [...first.flat(), ...register, left ? LEFT : "https://me.example/new", ...flags.flat()]);
    await fc.assert(
      fc.asyncProperty(argv, async (argv) => {
        const stored = await snapshot(kv);
        const hooks = (await platform.listHooks()).length;
        const ran = await runMain([...argv, "--kv", path], env);
        const what = endedCleanly(argv, ran);
        for (const secret of [SECRET, ACCESS, REFRESH]) {
          assert.ok(!ran.out.includes(secret) && !ran.err.includes(secret), `${what} printed a secret`);
        }
        if (argv.some((a) => a.startsWith("--again="))) {
          assert.equal(ran.code, 2, `${what}: ${ran.err}`);
        }
        if (ran.code !== 0) {
          assert.deepEqual(await snapshot(kv), stored, `${what} changed what is stored`);
          assert.equal((await platform.listHooks()).length, hooks, `${what} made a hook`);
        }
      }),
      { numRuns: 150 },
    );

    // `--again=` with any value, after a command line otherwise whole: a usage error naming --again, nothing made.
    await fc.assert(
      fc.asyncProperty(value, fc.boolean(), async (v, left) => {
        const argv = [...register, left ? LEFT : "https://me.example/new", `--again=${v}`];
        const stored = await snapshot(kv);
        const hooks = (await platform.listHooks()).length;
        const ran = await runMain([...argv, "--kv", path], env);
        const what = endedCleanly(argv, ran);
        assert.equal(ran.code, 2, `${what}: ${ran.err}`);
        assert.match(ran.err, /^Error: .*'--again'/, what);
        assert.match(ran.err, /hooks register --community NAME .*\[--again\]/, `${what}: the usage follows`);
        assert.deepEqual(await snapshot(kv), stored, `${what} changed what is stored`);
        assert.equal((await platform.listHooks()).length, hooks, `${what} made a hook`);
      }),
      { numRuns: 50 },
    );

    // The unfinished request made again: refused without --again (whatever else is given), registered with it.
    const refused = await runMain([...register, LEFT, "--kv", path, "--json"], env);
    assert.equal(refused.code, 1, refused.out);
    assert.match(refused.err, /^Error: a registration of this callback .* did not finish/);
    assert.equal(refused.out, "");
    const forced = await runMain([...register, LEFT, "--again", "--kv", path], env);
    assert.equal(forced.code, 0, forced.err);
  } finally {
    kv.close();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
