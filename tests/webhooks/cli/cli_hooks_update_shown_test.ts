// `hooks update`'s line names the hook's callback and object as the other commands show URLs: a password in a
// callback (`https://user:secret@app.example/cb`, sent as Basic auth) is a secret and never printed, whether the
// update gave it or the record held it. Run in process through `main` against the sandbox platform on 127.0.0.1.

import assert from "node:assert/strict";
import { registerAcmeHook, runMain, withSetup } from "./_cli_setup.ts";

const PASSWORD = "pa55w0rd-of-the-receiver";

Deno.test("cli hooks update: a callback's password is shown as *** in the line printed, given now or stored", async () => {
  await withSetup(async (kv, platform) => {
    const reg = await runMain([...registerAcmeHook(kv), "--callback", "https://me.example/hooks/1", "--json"]);
    assert.equal(reg.code, 0, reg.err);
    const id = JSON.parse(reg.out).record.id;
    const moved = `https://receiver:${PASSWORD}@new.example/hooks/1`;
    const place = `${platform.url.replace("://", `://reader:${PASSWORD}@`)}/api/core/v3/places/1`;
    const runs = [
      await runMain(["hooks", "update", id, "--callback", moved, "--kv", kv]),
      await runMain(["hooks", "update", id, "--disable", "--kv", kv]), // the stored callback
      await runMain(["hooks", "update", id, "--events", "document", "--object", place, "--kv", kv]),
    ];
    for (const run of runs) {
      assert.equal(run.code, 0, run.err);
      assert.match(run.out, /^Updated webhook .*callback https:\/\/receiver:\*\*\*@new\.example\/hooks\/1/);
      assert.ok(!run.out.includes(PASSWORD) && !run.err.includes(PASSWORD), `the password printed: ${run.out}`);
    }
    assert.match(runs[2].out, /object http:\/\/reader:\*\*\*@127\.0\.0\.1/);
    // Stored as given: only the printing hides it.
    const found = await runMain(["hooks", "find", "--id", id, "--kv", kv, "--json"]);
    assert.equal(platform.requests("PUT").length, 3);
    assert.equal(JSON.parse(platform.requests("PUT")[0].body).callback, moved);
    assert.ok(!found.out.includes(PASSWORD), "hooks find shows it hidden too");
  });
});
