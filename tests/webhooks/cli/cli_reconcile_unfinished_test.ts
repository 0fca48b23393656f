// A register killed mid-way whose hook is not on the platform (killed before the platform made it, or the hook deleted
// there since) leaves an entry that refuses the same register and tells to run `reconcile NAME --fix`. reconcile, run
// then, said only "0 matched, 0 orphans, 0 dangling" and, with --fix, "0 left as they were": nothing of the entry, so
// an operator who ran it before the minute was up took the entry as cleared, and the register was refused again.
// reconcile must say that an unfinished registration with no hook on the platform is there, and what clears it.

import assert from "node:assert/strict";
import { ACCESS, cli, REFRESH, registerAcmeHook, ROOT, withSetup } from "./_cli_setup.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };

Deno.test("cli reconcile names an unfinished registration that no platform hook explains, with and without --fix", async () => {
  await withSetup(async (kv, platform) => {
    const arrived = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    platform.beforeAnswer = async (req) => {
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/api/core/v3/webhooks")) return;
      arrived.resolve();
      await release.promise;
    };
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", ...registerAcmeHook(kv), "--callback", "https://me.example/h"],
      cwd: ROOT,
      env: { ...env, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      await arrived.promise;
      child.kill("SIGKILL");
      assert.equal((await child.output()).signal, "SIGKILL");
    } finally {
      release.resolve();
      platform.beforeAnswer = undefined;
    }
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
