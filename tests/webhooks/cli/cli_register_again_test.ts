// `hooks register` run again after a register killed mid-way (kill -9 of a child `hooks register` once the platform
// on 127.0.0.1 has its POST, its answer held): the same command, as an operator would run it, registered a second
// platform hook with the same callback, object and events, and `reconcile --fix` adopted the first as well, so the
// app got every postback twice and nothing said so. It must refuse (status 1, nothing registered) and say that the
// registration began and did not finish, that its hook may exist, and what to do: `reconcile NAME --fix`, or
// `--again`. A register of other events or another callback, or one after a clean refusal (400), is not refused.

import assert from "node:assert/strict";
import { ACCESS, cli, killedRegister, noSecrets, REFRESH, registerAcmeHook, withSetup } from "./_cli_setup.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
const CALLBACK = "https://me.example/h";

/** Reconcile run as `reconcile --fix` once the entry is a minute old: `staleAfter` 0 stands for the minute waited. */
async function fixOnceStale(path: string): Promise<{ adopted: number; records: number }> {
  const kv = await Deno.openKv(path);
  try {
    const hooks = createWebhooks(kv);
    const acme = await hooks.communities.findByName("Acme");
    assert.ok(acme);
    const report = await hooks.reconcile(acme, { fix: true, staleAfter: 0, accessToken: ACCESS });
    assert.deepEqual(await hooks.pending(acme.tenantId), [], "a pending entry was left after the fix");
    return {
      adopted: report.orphans.filter((o) => o.pending !== null).length,
      records: (await hooks.findByTenantID(acme.tenantId)).length,
    };
  } finally {
    kv.close();
  }
}

Deno.test("cli hooks register after a killed register: refused, says what to do; reconcile --fix adopts the one hook", async () => {
  await withSetup(async (kv, platform) => {
    const before = Date.now();
    await killedRegister(kv, platform, CALLBACK);

    const again = await cli([...registerAcmeHook(kv), "--callback", CALLBACK], { env });
    noSecrets(again);
    assert.equal(again.code, 1, `a second register was not refused: ${again.stdout}${again.stderr}`);
    assert.equal((await platform.listHooks()).length, 1, "a second hook was registered on the platform");
    assert.equal(again.stdout, "");
    const message = again.stderr.trim();
    assert.equal(message.split("\n").length, 1, message);
    assert.match(message, /^Error: a registration of this callback .*began at \d{4}-\d\d-\d\dT\S+Z \(\d+ s ago\)/);
    assert.match(message, /did not finish/);
    assert.match(message, /may already exist on the platform/);
    assert.match(message, /reconcile Acme --fix/);
    assert.match(message, /in \d+ s/, "a young entry's wait is not said");
    assert.match(message, /--again/);
    const at = Date.parse(message.match(/began at (\S+Z)/)![1]);
    assert.ok(at >= before - 1000 && at <= Date.now(), message);

    // With --json too: the error on stderr as the CLI's other errors, nothing on stdout.
    const json = await cli(["--json", ...registerAcmeHook(kv), "--callback", CALLBACK], { env });
    noSecrets(json);
    assert.equal(json.code, 1, json.stdout);
    assert.equal(json.stdout, "");
    assert.match(json.stderr, /^Error: a registration of this callback/);
    assert.equal((await platform.listHooks()).length, 1);

    // reconcile says the orphan's registration may still finish (the CLI has no staleAfter flag)...
    const report = await cli(["reconcile", "Acme", "--kv", kv], { env });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /0 matched, 1 orphans, 0 dangling/);
    assert.match(report.stdout, /may still finish: run reconcile --fix again in \d+ s/);
    // ...and a fix once the entry is a minute old adopts exactly the one hook.
    assert.deepEqual(await fixOnceStale(kv), { adopted: 1, records: 1 });
    assert.equal((await platform.listHooks()).length, 1);
  });
});

Deno.test("cli hooks register after a killed register: other events or callback are not refused, --again registers", async () => {
  await withSetup(async (kv, platform) => {
    await killedRegister(kv, platform, CALLBACK);
    const other = await cli([
      "hooks",
      "register",
      "--kv",
      kv,
      "--community",
      "Acme",
      "--events",
      "user_membership",
      "--callback",
      CALLBACK,
    ], { env });
    assert.equal(other.code, 0, other.stderr);
    const elsewhere = await cli([...registerAcmeHook(kv), "--callback", "https://me.example/other"], { env });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.equal((await platform.listHooks()).length, 3);

    const forced = await cli([...registerAcmeHook(kv), "--callback", CALLBACK, "--again"], { env });
    noSecrets(forced);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^Registered webhook /);
    const hooks = await platform.listHooks();
    assert.equal(hooks.length, 4);
    assert.equal(hooks.filter((h) => h.callback === CALLBACK && String(h.events) === "user_account").length, 2);
    // The killed one's entry is still there for reconcile, which adopts it alone.
    assert.deepEqual(await fixOnceStale(kv), { adopted: 1, records: 4 });
  });
});

Deno.test("cli hooks register after a clean refusal (400): not refused, no entry was left", async () => {
  await withSetup(async (kv, platform) => {
    platform.override = (req, url) =>
      req.method === "POST" && url.pathname.endsWith("/api/core/v3/webhooks")
        ? Response.json({ error: { status: 400, message: "no" } }, { status: 400 })
        : undefined;
    const refused = await cli([...registerAcmeHook(kv), "--callback", CALLBACK], { env });
    assert.equal(refused.code, 1, refused.stdout);
    assert.doesNotMatch(refused.stderr, /registration of this callback/);
    platform.override = undefined;
    const ok = await cli([...registerAcmeHook(kv), "--callback", CALLBACK], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((await platform.listHooks()).length, 1);
  });
});

Deno.test("cli hooks register after a register ended by Ctrl-C during the platform call: refused too", async () => {
  await withSetup(async (kv, platform) => {
    await killedRegister(kv, platform, CALLBACK, "SIGINT");
    const again = await cli([...registerAcmeHook(kv), "--callback", CALLBACK], { env });
    noSecrets(again);
    assert.equal(again.code, 1, `a second register was not refused: ${again.stdout}${again.stderr}`);
    assert.match(again.stderr, /^Error: a registration of this callback .* did not finish/);
    assert.equal((await platform.listHooks()).length, 1, "a second hook was registered on the platform");
    assert.deepEqual(await fixOnceStale(kv), { adopted: 1, records: 1 });
  });
});
