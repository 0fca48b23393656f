// `hooks update ID [--events a,b] [--object URL | --no-object] [--callback URL] [--enable | --disable]`: an operator whose console
// moved to another address points every hook at it from a script, or pauses a hook, as the library's `update` does
// (the platform's PUT, then the record). Run as the CLI runs (a child process) against the sandbox platform on
// 127.0.0.1; a refused change sends nothing and leaves the record as it was; no secret is printed.

import assert from "node:assert/strict";
import { cli, noSecrets, registerAcmeHook, withSetup } from "./_cli_setup.ts";

/** Registers a hook of "Acme" with `callback`; resolves with its record id. */
async function registered(kv: string, callback: string): Promise<string> {
  const reg = await cli([...registerAcmeHook(kv), "--callback", callback, "--json"]);
  assert.equal(reg.code, 0, reg.stderr);
  return JSON.parse(reg.stdout).record.id;
}

/** The record `id` as `hooks find --id` shows it. */
async function found(kv: string, id: string): Promise<{ entity: Record<string, unknown> }> {
  const run = await cli(["hooks", "find", "--id", id, "--kv", kv, "--json"]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

Deno.test("cli hooks update: a new callback, then disabled and enabled again, on the platform and in the record", async () => {
  await withSetup(async (kv, platform) => {
    const id = await registered(kv, "https://old.example/hooks/1");
    const moved = await cli(["hooks", "update", id, "--callback", "https://new.example/hooks/1", "--kv", kv]);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(
      moved.stdout,
      new RegExp(`^Updated webhook ${id} \\(on the platform and here\\): .*https://new\\.example/hooks/1`),
    );
    const puts = platform.requests("PUT");
    assert.equal(puts.length, 1);
    assert.equal(JSON.parse(puts[0].body).callback, "https://new.example/hooks/1");
    assert.equal((await found(kv, id)).entity.callback, "https://new.example/hooks/1");

    const off = await cli(["hooks", "update", id, "--disable", "--kv", kv, "--json"]);
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(JSON.parse(off.stdout), await found(kv, id), "--json: the record as hooks find shows it");
    assert.equal(JSON.parse(platform.requests("PUT")[1].body).enabled, false);
    assert.equal((await found(kv, id)).entity.enabled, false);
    const on = await cli(["hooks", "update", id, "--enable", "--kv", kv]);
    assert.equal(on.code, 0, on.stderr);
    assert.equal((await found(kv, id)).entity.enabled, true);
    assert.equal((await found(kv, id)).entity.callback, "https://new.example/hooks/1", "the callback kept");
    for (const run of [moved, off, on]) noSecrets(run);
  });
});

Deno.test("cli hooks update refuses, naming what is wrong, sends nothing and leaves the record as it was", async () => {
  await withSetup(async (kv, platform) => {
    const id = await registered(kv, "https://me.example/hooks/1");
    const before = await found(kv, id);
    const cases: Array<[string[], number, RegExp]> = [
      [[id], 2, /--events, --object, --no-object, --callback, --enable or --disable/],
      [[id, "--object", "https://acme.example/api/core/v3/places/3", "--no-object"], 2, /--object and --no-object/],
      [[id, "--enable", "--disable"], 2, /--enable and --disable/],
      [[id, "--callback", "ftp://me.example/x"], 2, /^Error: --callback /],
      [[id, "--events", ","], 2, /--events needs/],
      [[id, "--events", "user_account,jive:created"], 2, /^Error: --events /],
      [["nope", "--disable"], 1, /^Error: No webhook has the id 'nope'/],
    ];
    for (const [args, code, message] of cases) {
      const run = await cli(["hooks", "update", ...args, "--kv", kv]);
      assert.equal(run.code, code, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message, args.join(" "));
      assert.ok(!/\n\s+at /.test(run.stderr), `a stack: ${run.stderr}`);
      noSecrets(run);
    }
    assert.equal(platform.requests("PUT").length, 0, "a refused change sent a PUT");
    assert.deepEqual(await found(kv, id), before);
  });
});

Deno.test("cli hooks update: a callback the internet cannot reach is updated, and warned of on stderr", async () => {
  await withSetup(async (kv) => {
    const id = await registered(kv, "https://me.example/hooks/1");
    const run = await cli(["hooks", "update", id, "--callback", "http://192.168.1.20:8000/hooks/1", "--kv", kv]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^Warning: the callback's host 192\.168\.1\.20:8000 .*\(the hook is updated all the same\)/,
    );
    assert.equal((await found(kv, id)).entity.callback, "http://192.168.1.20:8000/hooks/1");
  });
});

Deno.test("cli hooks update: content events with their object, then back to system events with --no-object", async () => {
  await withSetup(async (kv, platform) => {
    const id = await registered(kv, "https://me.example/hooks/1");
    const place = `${platform.url}/api/core/v3/places/1`;
    const content = await cli(["hooks", "update", id, "--events", "document", "--object", place, "--kv", kv]);
    assert.equal(content.code, 0, content.stderr);
    assert.deepEqual([(await found(kv, id)).entity.events, (await found(kv, id)).entity.object], [["document"], place]);
    const system = await cli(["hooks", "update", id, "--events", "user_account", "--no-object", "--kv", kv]);
    assert.equal(system.code, 0, system.stderr);
    const body = JSON.parse(platform.requests("PUT")[1].body);
    assert.equal(body.object, undefined, "the object left out of the PUT");
    assert.equal((await found(kv, id)).entity.object, undefined);
  });
});

Deno.test("cli hooks register and update send an event named twice once", async () => {
  await withSetup(async (kv, platform) => {
    const reg = await cli([
      ...["hooks", "register", "--kv", kv, "--community", "Acme"],
      ...["--events", "user_account,user_account", "--callback", "https://me.example/hooks/1", "--json"],
    ]);
    assert.equal(reg.code, 0, reg.stderr);
    assert.deepEqual(JSON.parse(platform.requests("POST", "/api/core/v3/webhooks")[0].body).events, ["user_account"]);
    const id = JSON.parse(reg.stdout).record.id;
    const run = await cli(["hooks", "update", id, "--events", "user_session, user_session,user_account", "--kv", kv]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(platform.requests("PUT")[0].body).events, ["user_session", "user_account"]);
  });
});
