// `hooks update` kill -9ed while the platform holds its PUT: the platform took the change, the record did not. The
// operator then asks `reconcile` whether the records and the platform agree: it must say this record differs and
// what to do (`--fix` saves the platform's fields here), not "1 matched" and nothing else; after `--fix` they agree.
// Run as the CLI runs (child processes) against the sandbox platform on 127.0.0.1, on a real KV file.

import assert from "node:assert/strict";
import { ACCESS, cli, REFRESH, registerAcmeHook, ROOT, withSetup } from "./_cli_setup.ts";

const ENV = { env: { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH } };

/** The callback of record `id` as `hooks find --id` shows it. */
async function storedCallback(kv: string, id: string): Promise<unknown> {
  const found = await cli(["hooks", "find", "--id", id, "--kv", kv, "--json"]);
  assert.equal(found.code, 0, found.stderr);
  return JSON.parse(found.stdout).entity.callback;
}

Deno.test("cli hooks update killed after the platform took its PUT: reconcile names the record behind, --fix levels it", async () => {
  await withSetup(async (kv, platform) => {
    const reg = await cli([...registerAcmeHook(kv), "--callback", "https://old.example/hooks/1", "--json"], ENV);
    assert.equal(reg.code, 0, reg.stderr);
    const id = JSON.parse(reg.stdout).record.id;
    const arrived = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    platform.beforeAnswer = async (req) => {
      if (req.method !== "PUT") return;
      arrived.resolve();
      await release.promise;
    };
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "hooks", "update", id, "--callback", "https://new.example/h", "--kv", kv],
      cwd: ROOT,
      env: { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH, NO_COLOR: "1" },
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
    const [hook] = await platform.listHooks();
    assert.equal(hook.callback, "https://new.example/h", "the platform took the PUT");
    assert.equal(await storedCallback(kv, id), "https://old.example/hooks/1", "the record did not");

    const report = await cli(["reconcile", "Acme", "--kv", kv], ENV);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /^Acme: 1 matched, 0 orphans, 0 dangling/);
    assert.match(report.stdout, new RegExp(`1 record differs from its hook on the platform.*--fix.*\\n.*${id}`, "s"));
    assert.match(report.stdout, /callback https:\/\/old\.example\/hooks\/1 here, https:\/\/new\.example\/h there/);

    const fixed = await cli(["reconcile", "Acme", "--fix", "--kv", kv], ENV);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stdout, /1 record differs .*saved the platform's fields here/s);
    assert.equal(await storedCallback(kv, id), "https://new.example/h");
    const again = await cli(["reconcile", "Acme", "--kv", kv], ENV);
    assert.equal(again.stdout.trim(), "Acme: 1 matched, 0 orphans, 0 dangling", "they agree now");
  });
});
