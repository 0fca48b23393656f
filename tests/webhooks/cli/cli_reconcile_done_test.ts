// `reconcile --fix` printed "(fixed)" after its counts whatever it did: an orphan no registration explains is left on
// the platform without --delete-unknown, yet the line said fixed, and no row said what was done with it, so an
// operator took the drift as repaired. Each orphan and dangling row must say what this run did with it (adopted,
// deleted on the platform, removed here, or left and what would act on it), and the counts line must not claim a
// fix it did not make. --json keeps API.md's report `{ matched, orphans, dangling }`.

import assert from "node:assert/strict";
import { ACCESS, cli, REFRESH, seedAcmeHook, withSetup } from "./_cli_setup.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };

/** The line of `stdout` holding `text`. */
function line(stdout: string, text: string): string {
  const found = stdout.split("\n").find((l) => l.includes(text));
  assert.ok(found, `no line holds ${text}:\n${stdout}`);
  return found;
}

Deno.test("cli reconcile says on each row what it did: left without --fix, adopted, removed, deleted only with --delete-unknown", async () => {
  await withSetup(async (kv, platform) => {
    const unknown = String(
      ((await platform.addHook({ events: ["user_account"], callback: "https://x.example/u" }))
        .resources as { self: { ref: string } }).self.ref,
    );
    const killed = { events: ["user_account"], callback: "https://me.example/killed" };
    const explained = String(((await platform.addHook(killed)).resources as { self: { ref: string } }).self.ref);
    const db = await Deno.openKv(kv);
    const pending = { id: "01PENDING", tenantId: "tenant-acme", community: "Acme", ...killed };
    await db.set(["webhook_pending", "tenant-acme", pending.id], { ...pending, startedAt: Date.now() - 120_000 });
    db.close();
    await seedAcmeHook(kv); // record h7, whose hook the platform does not have: dangling

    const report = await cli(["reconcile", "Acme", "--kv", kv], { env });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /^Acme: 0 matched, 2 orphans, 1 dangling\n/);
    assert.doesNotMatch(report.stdout, /fixed|adopted|deleted|removed here/i, report.stdout);
    assert.match(line(report.stdout, explained), /left.*--fix/, report.stdout);
    assert.match(line(report.stdout, unknown), /left.*--delete-unknown/, report.stdout);
    assert.match(line(report.stdout, "h7"), /left.*--fix/, report.stdout);

    const fixed = await cli(["reconcile", "Acme", "--fix", "--kv", kv], { env });
    assert.equal(fixed.code, 0, fixed.stderr);
    const counts = fixed.stdout.split("\n")[0];
    assert.doesNotMatch(counts, /\(fixed\)/, "an orphan was left, yet the counts say fixed");
    assert.match(line(fixed.stdout, explained), /adopted/, fixed.stdout);
    assert.match(line(fixed.stdout, unknown), /left.*--delete-unknown/, fixed.stdout);
    assert.match(line(fixed.stdout, "h7"), /removed here/, fixed.stdout);
    assert.equal((await platform.listHooks()).length, 2, "--fix alone deleted a hook");

    const deleted = await cli(["reconcile", "Acme", "--fix", "--delete-unknown", "--kv", kv], { env });
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^Acme: 1 matched, 1 orphans, 0 dangling\n/);
    assert.match(line(deleted.stdout, unknown), /deleted on the platform/, deleted.stdout);
    assert.equal((await platform.listHooks()).length, 1);

    const json = await cli(["reconcile", "Acme", "--json", "--kv", kv], { env });
    assert.deepEqual(Object.keys(JSON.parse(json.stdout)), ["matched", "orphans", "dangling"]);
  });
});
