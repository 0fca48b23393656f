// The command line run as a user runs it: a subprocess, through `deno task
// cli` and as `deno run webhooks/cli.ts`, on a temporary KV file and a fake
// platform on 127.0.0.1 (issue 12).

import assert from "node:assert/strict";
import { fixtureRecords, writeOldLayout } from "../_old_layout.ts";
import { cli, noSecrets, registerAcmeHook, withSetup } from "./_cli_setup.ts";

Deno.test("cli --help lists every command through the task, and each command has its own help with examples", async () => {
  const top = await cli(["--help"], { task: true });
  assert.equal(top.code, 0, top.stderr);
  for (const word of ["communities list", "hooks register", "reconcile NAME", "receive", "migrate", "--kv"]) {
    assert.ok(top.stdout.includes(word), word);
  }
  const one = await cli(["hooks", "list", "--help"]);
  assert.equal(one.code, 0);
  assert.match(one.stdout, /^Usage: deno task cli hooks list \[--tenant ID\]/);
  assert.match(one.stdout, /Examples:\n {2}deno task cli hooks list/);
  // A group's word alone, with --help: its commands, on stdout, exit 0.
  for (
    const [word, commands] of [["hooks", ["list", "find", "register", "unregister"]], ["communities", [
      "add",
      "remove",
    ]]] as const
  ) {
    const group = await cli([word, "--help"]);
    assert.equal(group.code, 0, group.stderr);
    assert.match(group.stdout, new RegExp(`^Usage: deno task cli ${word} <command>`));
    for (const command of commands) assert.match(group.stdout, new RegExp(`\n {2}${word} ${command}\\b`));
    assert(!group.stdout.includes("reconcile NAME"), "only the group's commands");
  }
});

Deno.test("cli usage errors exit 2 with the usage on stderr and nothing on stdout", async () => {
  const cases: [string[], RegExp][] = [
    [[], /^Error: No command given/],
    [["hooks", "lisst"], /^Error: Unknown command 'hooks lisst'/],
    [["hooks"], /^Error: 'hooks' needs a command: list, find, register, update, unregister\n/],
    [["hooks", "list", "--kv", ""], /^Error: --kv needs a path or a URL, got an empty one\n/],
    [["hooks", "list", "--tenant="], /^Error: --tenant needs a value, got an empty one\n/],
    [[
      "hooks",
      "register",
      "--community",
      "A",
      "--events",
      "user_account",
      "--callback",
      "https://x.example/h",
      "--object",
      "",
    ], /^Error: --object needs a value, got an empty one\n/],
    [["hooks", "list", "--bogus"], /^Error: Unknown option '--bogus'/],
    [["hooks", "list", "--name", "x"], /^Error: 'hooks list' has no option '--name'/],
    [["communities", "add", "--name", "x"], /^Error: 'communities add' needs --tenant/],
    [["communities", "show"], /^Error: 'communities show' takes NAME, got none/],
    [["hooks", "find", "--kv", ":memory:"], /^Error: give one of --url and --id/],
  ];
  for (const [args, message] of cases) {
    const run = await cli(args);
    assert.equal(run.code, 2, args.join(" "));
    assert.equal(run.stdout, "");
    assert.match(run.stderr, message);
    assert.match(run.stderr, /\nUsage: deno task cli/);
  }
});

Deno.test("cli communities: add, list, show, remove; secrets only as 'set', in tables and JSON", async () => {
  await withSetup(async (kv) => {
    const list = await cli(["communities", "list", "--kv", kv]);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^NAME\s+TENANT\s+BASE URL\s+CLIENT ID\s+SECRET\s+TOKENS\n/);
    assert.match(
      list.stdout,
      /Acme\s+tenant-acme\s+http:\/\/127\.0\.0\.1:\d+\/platform\s+client-1\s+set\s+access \+ refresh/,
    );
    noSecrets(list);
    const json = await cli(["--json", "communities", "show", "Acme", "--kv", kv]);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout)), [
      "name",
      "tenantId",
      "baseUrl",
      "clientId",
      "hasClientSecret",
      "hasAccessToken",
      "hasRefreshToken",
      "renewedAt",
    ]);
    noSecrets(json);
    const missing = await cli(["communities", "show", "Nope", "--kv", kv]);
    assert.deepEqual([missing.code, missing.stdout, missing.stderr], [1, "", "Error: No community is named 'Nope'\n"]);
    const removed = await cli(["communities", "remove", "Acme", "--kv", kv, "--json"]);
    assert.equal(JSON.parse(removed.stdout).removed.name, "Acme");
    assert.deepEqual(JSON.parse((await cli(["communities", "list", "--kv", kv, "--json"])).stdout), []);
  });
});

Deno.test("cli hooks: register, list, find by URL and id, unregister, against the platform", async () => {
  await withSetup(async (kv, platform) => {
    const reg = await cli([...registerAcmeHook(kv), "--callback", "https://me.example/hooks/1", "--json"]);
    assert.equal(reg.code, 0, reg.stderr);
    const registered = JSON.parse(reg.stdout);
    assert.equal(registered.status, 200);
    const ref = registered.entity.resources.self.ref;
    const list = JSON.parse((await cli(["hooks", "list", "--kv", kv, "--json", "--tenant", "tenant-acme"])).stdout);
    assert.deepEqual(list.map((h: { id: string }) => h.id), [registered.record.id]);
    const byUrl = JSON.parse((await cli(["hooks", "find", "--url", ref, "--kv", kv, "--json"])).stdout);
    assert.equal(byUrl[0].entity.resources.self.ref, ref);
    const byId = JSON.parse((await cli(["hooks", "find", "--id", registered.record.id, "--kv", kv, "--json"])).stdout);
    assert.equal(byId.id, registered.record.id);
    const table = await cli(["hooks", "list", "--kv", kv]);
    assert.match(table.stdout, /^ID\s+TENANT\s+EVENTS\s+CALLBACK\s+URL\n/);
    const gone = await cli(["hooks", "unregister", registered.record.id, "--kv", kv]);
    assert.equal(gone.code, 0, gone.stderr);
    assert.equal(platform.requests("DELETE").length, 1);
    assert.deepEqual(JSON.parse((await cli(["hooks", "list", "--kv", kv, "--json"])).stdout), []);
    for (const run of [reg, table, gone]) noSecrets(run);
  });
});

Deno.test("cli: a failed operation exits 1 with one line on stderr, no stack and no secret", async () => {
  await withSetup(async (kv) => {
    const run = await cli([
      ...registerAcmeHook(kv),
      "--callback",
      "https://me.example/h",
      "--access-token",
      "expired-token-value",
      "--refresh-token",
      "bad-refresh-value",
    ]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    assert.match(run.stderr, /^Error: /);
    assert.ok(!/\n\s+at /.test(run.stderr) && !run.stderr.includes("expired-token-value"));
    const unknown = await cli(["hooks", "find", "--id", "nope", "--kv", kv]);
    assert.deepEqual([unknown.code, unknown.stderr], [1, "Error: No webhook has the id 'nope'\n"]);
    const badKv = await cli(["hooks", "list", "--kv", "/nonexistent/dir/w.kv"]);
    assert.equal(badKv.code, 1);
    assert.match(badKv.stderr, /^Error: Cannot open the KV at '\/nonexistent\/dir\/w\.kv'/);
  });
});

Deno.test("cli reconcile reports drift as { matched, orphans, dangling } and --fix --delete-unknown cleans it", async () => {
  await withSetup(async (kv, platform) => {
    await platform.addHook({ events: ["user_account"], callback: "https://elsewhere.example/cb" });
    const report = await cli(["reconcile", "Acme", "--kv", kv, "--json"]);
    assert.equal(report.code, 0, report.stderr);
    const parsed = JSON.parse(report.stdout);
    assert.deepEqual(Object.keys(parsed), ["matched", "orphans", "dangling"]);
    assert.equal(parsed.orphans.length, 1);
    // API.md: "progress on stderr while paging", a terminal or not; stdout holds the report alone.
    assert.equal(report.stderr, "reading the platform's webhooks: page 1\n");
    const text = await cli(["reconcile", "Acme", "--kv", kv]);
    assert.match(text.stdout, /^Acme: 0 matched, 1 orphans, 0 dangling\n/);
    const fixed = await cli(["reconcile", "Acme", "--fix", "--delete-unknown", "--kv", kv, "--json"]);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.equal((await platform.listHooks()).length, 0);
  });
});

Deno.test("cli migrate moves a KV of the earlier layout; --kv defaults to $KV_PATH", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_migrate_" });
  try {
    const path = `${dir}/old.kv`;
    const kv = await Deno.openKv(path);
    await writeOldLayout(kv, fixtureRecords(20));
    kv.close();
    const run = await cli(["migrate", "--json"], { env: { KV_PATH: path } });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { scanned: 40, migrated: 40, removed: 0 });
    // migrate's progress, on stderr whether or not it is a terminal (API.md: "migrate() with progress").
    assert.match(run.stderr, /^(\d+ index entries scanned, \d+ migrated\n)+$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
