// The command line run as a user runs it: a subprocess, through `deno task
// cli` and as `deno run webhooks/cli.ts`, on a temporary KV file and a fake
// platform on 127.0.0.1 (issue 12).

import assert from "node:assert/strict";
import { createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { type Platform, startPlatform } from "../platform.ts";
import { fixtureRecords, writeOldLayout } from "../_old_layout.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const SECRET = "client-s3cret-value";
const ACCESS = "good-token";
const REFRESH = "good-refresh";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in a subprocess: `deno run -A webhooks/cli.ts`, or `deno task cli` with `task`. */
async function cli(args: string[], options: { env?: Record<string, string>; task?: boolean } = {}): Promise<Run> {
  const command = options.task ? ["task", "-q", "cli", ...args] : ["run", "-A", "webhooks/cli.ts", ...args];
  const out = await new Deno.Command(Deno.execPath(), {
    args: command,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A temporary KV file and the sandbox platform whose community "Acme" the CLI added. */
async function withSetup(fn: (kv: string, platform: Platform) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_test_" });
  const platform = await startPlatform({ clientSecret: SECRET });
  try {
    const kv = `${dir}/webhooks.kv`;
    const added = await cli([
      "communities",
      "add",
      "--kv",
      kv,
      "--name",
      "Acme",
      "--tenant",
      "tenant-acme",
      "--base-url",
      platform.url,
      "--client-id",
      "client-1",
      "--client-secret",
      SECRET,
    ], { env: { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH } });
    assert.equal(added.code, 0, added.stderr);
    noSecrets(added);
    await fn(kv, platform);
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The command line that registers a `user_account` hook of "Acme" in the KV at `kv`; its callback and options follow. */
function registerAcmeHook(kv: string): string[] {
  return ["hooks", "register", "--kv", kv, "--community", "Acme", "--events", "user_account"];
}

function noSecrets(run: Run): void {
  for (const secret of [SECRET, ACCESS, REFRESH]) {
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `${secret} printed`);
  }
}

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
    [["hooks"], /^Error: 'hooks' needs a command: list, find, register, unregister\n/],
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

Deno.test("cli progress goes to stderr: a listing's only on a terminal, migrate's always", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_progress_" });
  try {
    const path = `${dir}/w.kv`;
    const db = await Deno.openKv(path);
    await writeOldLayout(db, fixtureRecords(600));
    db.close();
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: () => undefined };
    assert.equal(await main(["hooks", "list", "--kv", path, "--json"], { ...io, stderrIsTerminal: true }), 0);
    assert.equal(JSON.parse(out.join("\n")).length, 600);
    assert.deepEqual(err, ["500 webhooks so far"]);
    out.length = err.length = 0;
    assert.equal(await main(["hooks", "list", "--kv", path, "--json"], io), 0);
    assert.deepEqual(err, [], "a listing's paging progress only on a terminal");
    out.length = 0;
    // Not a terminal: migrate's progress all the same (API.md: "migrate() with progress").
    assert.equal(await main(["migrate", "--kv", path], io), 0);
    assert.ok(err.length >= 2 && err.every((line) => / index entries scanned, \d+ migrated$/.test(line)), err.join());
    assert.deepEqual(out, ["Migrated 1200 index entries, removed 0 stale ones (1200 scanned)"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli receive prints each verified postback as one JSON line and stops cleanly on Ctrl-C", async () => {
  await withSetup(async (kv) => {
    // A hook of the community, for the postback to name.
    const ref = "https://acme.example/api/core/v3/webhooks/7";
    {
      const db = await Deno.openKv(kv);
      await db.atomic().set(["webhook", "h7"], {
        id: "h7",
        tenantId: "tenant-acme",
        entity: { resources: { self: { ref } } },
      })
        .set(["webhook_by_url", ref, "h7"], "h7").set(["webhook_by_tenant", "tenant-acme", "h7"], "h7").commit();
      db.close();
    }
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "receive", "--port", "0", "--kv", kv],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const errLines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/http:\/\/[\d.]+:\d+\//.test(seen)) seen += (await errLines.read()).value ?? "";
    const url = seen.match(/http:\/\/[\d.]+:\d+\//)![0];
    const authorization = await signJiveExtn(
      { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme", timestamp: Date.now() },
      SECRET,
    );
    const body = JSON.stringify([{ webhook: ref, activity: { verb: "jive:created", title: "Hello" } }]);
    const res = await fetch(url + "hooks", { method: "POST", headers: { authorization }, body });
    assert.deepEqual(await res.json(), { received: 1 });
    const forged = await fetch(url + "hooks", { method: "POST", headers: { authorization: "JiveEXTN x=1" }, body });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
    child.kill("SIGINT");
    const status = await child.status;
    await errLines.cancel();
    const stdout = new TextDecoder().decode(await new Response(child.stdout).arrayBuffer());
    assert.equal(status.code, 0);
    const lines = stdout.trim().split("\n");
    assert.equal(lines.length, 1, stdout);
    const line = JSON.parse(lines[0]);
    assert.deepEqual([line.tenantId, line.webhook, line.activity.title], ["tenant-acme", "h7", "Hello"]);
    const reopened = await Deno.openKv(kv); // closed cleanly: it opens again
    reopened.close();
  });
});

Deno.test("cli property: any command line ends with 0, 1 or 2, and a usage error prints nothing on stdout", async () => {
  const fc = (await import("fast-check")).default;
  const word = fc.oneof(
    fc.constantFrom(
      "communities",
      "hooks",
      "list",
      "show",
      "add",
      "remove",
      "find",
      "register",
      "unregister",
      "reconcile",
      "migrate",
      "--json",
      "--help",
      "-h",
      "--tenant",
      "--url",
      "--id",
      "--name",
      "--events",
      "--fix",
      "--bogus",
      "--",
      "=",
      "--kv=",
      "--port",
    ),
    fc.string({ maxLength: 12 }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(word, { maxLength: 6 }), async (argv) => {
      if (argv.includes("receive")) return; // it would serve until stopped
      const out: string[] = [];
      const io = { stdout: (t: string) => out.push(t), stderr: () => {}, env: () => undefined };
      const code = await main([...argv, "--kv", ":memory:"], io);
      if (![0, 1, 2].includes(code)) throw new Error(`exit ${code} for ${JSON.stringify(argv)}`);
      if (code === 2 && out.length) throw new Error(`stdout on a usage error: ${JSON.stringify(argv)}`);
    }),
    { numRuns: 300 },
  );
});

Deno.test("cli: a secret with a line break is refused as a usage error, and a stored one never reaches stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_test_" });
  const platform = await startPlatform({ clientSecret: SECRET });
  try {
    const path = `${dir}/webhooks.kv`;
    const err: string[] = [];
    const io = (env: Record<string, string>) => ({
      stdout: () => {},
      stderr: (t: string) => err.push(t),
      env: (name: string) => env[name],
    });
    const add = ["communities", "add", "--kv", path, "--name", "Acme", "--tenant", "t", "--base-url", platform.url];
    assert.equal(await main(add, io({ ACCESS_TOKEN: "SECRETAAAA\nSECRETBBBB" })), 2);
    assert.match(err[0], /^Error: --access-token \(or ACCESS_TOKEN\) holds a control character/);
    // One written by another tool: fetch cannot send it, and its error does not show it.
    const kv = await Deno.openKv(path);
    await createWebhooks(kv).communities.save({
      name: "Acme",
      tenantId: "t",
      baseUrl: platform.url,
      oauth: { access_token: "STOREDAAAA\nSTOREDBBBB", refresh_token: "r" },
    });
    kv.close();
    err.length = 0;
    assert.equal(await main([...registerAcmeHook(path), "--callback", "https://me.example/h"], io({})), 1);
    assert.equal(err.length, 1);
    assert.match(err[0], /^Error: .*\[token\]/);
    assert.ok(!err[0].includes("STORED"), err[0]);
    assert.equal(platform.seen.length, 0);
    err.length = 0;
    assert.equal(await main(["receive", "--kv", path, "--port", ""], io({})), 2);
    assert.match(err[0], /^Error: --port needs a value, got an empty one/);
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: a record written by another tool with odd fields is still listed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_test_" });
  try {
    const path = `${dir}/webhooks.kv`;
    const kv = await Deno.openKv(path);
    await createWebhooks(kv).save({
      id: "h1",
      tenantId: "t1",
      entity: { events: ["dm", 7], resources: { self: { ref: 42 } } } as Record<string, unknown>,
    });
    kv.close();
    const out: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), env: () => undefined };
    assert.equal(await main(["hooks", "list", "--kv", path], io), 0);
    assert.match(out.join("\n"), /^h1\s+t1\s+dm,7\s+42$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
