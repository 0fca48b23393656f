// `hooks register` killed with SIGKILL after the platform made the hook, before its answer reached the process (a
// platform on 127.0.0.1 that holds its answer): no record is half written (none at all), and `reconcile --fix` run
// next listed the hook as an orphan "EXPLAINED BY nothing" under "(fixed)", although its registration's entry is
// there and a later `reconcile --fix` adopts it: an operator told "nothing" explains it would delete it by hand or
// with --delete-unknown, or register again (a second hook). The row must say that a registration begun moments ago
// may still finish, and what to do: run `reconcile --fix` again once it is a minute old.

import assert from "node:assert/strict";
import { ACCESS, cli, killedRegister, REFRESH, withSetup } from "./_cli_setup.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };

Deno.test("cli hooks register killed after the platform made the hook: reconcile --fix says its registration may still finish", async () => {
  await withSetup(async (kv, platform) => {
    await killedRegister(kv, platform, "https://me.example/h");
    const listed = await cli(["hooks", "list", "--json", "--kv", kv]);
    assert.deepEqual(JSON.parse(listed.stdout), [], "a record was written by the killed register");

    const fixed = await cli(["reconcile", "Acme", "--fix", "--kv", kv], { env });
    assert.equal(fixed.code, 0, fixed.stderr);
    const row = fixed.stdout.split("\n").find((line) => line.includes("/api/core/v3/webhooks/"));
    assert.ok(row, fixed.stdout);
    assert.doesNotMatch(row, /\bnothing$/, fixed.stdout);
    assert.match(row, /registration .* may still finish.*reconcile --fix again/, fixed.stdout);

    const json = await cli(["reconcile", "Acme", "--fix", "--json", "--kv", kv], { env });
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout);
    assert.deepEqual(Object.keys(report), ["matched", "orphans", "dangling"]);
    assert.equal(report.orphans.length, 1);
    assert.equal((await platform.listHooks()).length, 1, "the hook of a registration still running was deleted");
  });
});
