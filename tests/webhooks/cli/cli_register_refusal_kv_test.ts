// `hooks register --kv PATH` refused after a register killed mid-way says what to run: `deno task cli reconcile NAME
// --fix`. Without the `--kv` the register was given, that command, copied as written, ran on `./webhooks.kv` (made
// anew there) and failed with "No community is named 'Acme'", and the entry stayed. The command it names must work on
// the same KV as the refused one: run here as printed, it finds the community and its platform hook.

import assert from "node:assert/strict";
import { ACCESS, cli, killedRegister, REFRESH, registerAcmeHook, withSetup } from "./_cli_setup.ts";

const env = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
const CALLBACK = "https://me.example/h";

Deno.test("cli hooks register --kv refused after a killed register names a reconcile command that runs on that KV", async () => {
  await withSetup(async (kv, platform) => {
    await killedRegister(kv, platform, CALLBACK);

    const again = await cli([...registerAcmeHook(kv), "--callback", CALLBACK], { env });
    assert.equal(again.code, 1, again.stderr);
    const said = /Run deno task cli (reconcile .*?)(?: in \d+ s)? \(it adopts/.exec(again.stderr);
    assert.ok(said, again.stderr);
    assert.match(said[1], /^reconcile Acme --fix/);
    const words = said[1].split(" ").map((w) => w.replace(/^'(.*)'$/, "$1"));
    assert.ok(words.includes(kv), `the command does not name the KV ${kv}: ${said[1]}`);

    const run = await cli(words, { env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Acme: 0 matched, 1 orphans, 0 dangling/);
  });
});
