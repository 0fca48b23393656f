// The command line run as a user runs it, continued: progress on stderr,
// `receive`, a property over any command line, secrets with line breaks, and
// records written by other tools (set-up in _cli_setup.ts).

import assert from "node:assert/strict";
import { createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";
import { startPlatform } from "../platform.ts";
import { fixtureRecords, writeOldLayout } from "../_old_layout.ts";
import { ACME_HOOK_REF, registerAcmeHook, SECRET, seedAcmeHook, withSetup } from "./_cli_setup.ts";
import { startReceive } from "./_receive_child.ts";

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
    const ref = ACME_HOOK_REF;
    await seedAcmeHook(kv);
    const { child, url, stdout: output } = await startReceive(kv);
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
    const stdout = await output;
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
