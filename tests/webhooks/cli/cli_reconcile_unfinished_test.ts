// A register killed mid-way whose hook is not on the platform (killed before the platform made it, or the hook deleted
// there since) leaves an entry that refuses the same register and tells to run `reconcile NAME --fix`. reconcile, run
// then, said only "0 matched, 0 orphans, 0 dangling" and, with --fix, "0 left as they were": nothing of the entry, so
// an operator who ran it before the minute was up took the entry as cleared, and the register was refused again.
// reconcile must say that an unfinished registration with no hook on the platform is there, and what clears it.

import assert from "node:assert/strict";
import { ACCESS, cli, killedRegister, REFRESH, withSetup } from "./_cli_setup.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };

Deno.test("cli reconcile names an unfinished registration that no platform hook explains, with and without --fix", async () => {
  await withSetup(async (kv, platform) => {
    await killedRegister(kv, platform, "https://me.example/h");
    // The platform has no hook of it: as when the process died before the platform made one.
    for (const hook of await platform.listHooks()) assert.ok(await platform.removeHook(String(hook.id)));

    const look = await cli(["reconcile", "Acme", "--kv", kv], { env });
    assert.equal(look.code, 0, look.stderr);
    assert.match(look.stdout, /^Acme: 0 matched, 0 orphans, 0 dangling\n/);
    assert.match(look.stdout, /1 unfinished registration .*no hook on the platform/);
    assert.match(look.stdout, /--fix clears it .*in \d+ s/);

    const fix = await cli(["reconcile", "Acme", "--fix", "--kv", kv], { env });
    assert.equal(fix.code, 0, fix.stderr);
    assert.match(fix.stdout, /1 unfinished registration .*no hook on the platform/);
    assert.match(fix.stdout, /left: .*in \d+ s/);
  });
});
