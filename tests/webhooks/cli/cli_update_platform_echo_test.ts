// A platform that refuses `hooks update`'s PUT may quote what it was sent in its answer: the sandbox's own refusal of
// an object for system events does, and so may a platform refusing a callback. A password in that URL (sent as Basic
// auth) is a secret: the CLI's error shows it as ***, as every URL it shows. Run in process through `main` against
// the sandbox platform on 127.0.0.1; the record stays as it was.

import assert from "node:assert/strict";
import { registerAcmeHook, runMain, withSetup } from "./_cli_setup.ts";

const PASSWORD = "pa55w0rd-of-the-receiver";

Deno.test("cli hooks update: a platform's refusal quoting a URL sent shows its password as ***", async () => {
  await withSetup(async (kv, platform) => {
    const reg = await runMain([...registerAcmeHook(kv), "--callback", "https://me.example/hooks/1", "--json"]);
    assert.equal(reg.code, 0, reg.err);
    const id = JSON.parse(reg.out).record.id;
    const before = await runMain(["hooks", "find", "--id", id, "--kv", kv, "--json"]);

    // The sandbox's own answer: an object is refused for system events, quoted as sent.
    const object = `https://reader:${PASSWORD}@acme.example/api/core/v3/places/3`;
    const refusedObject = await runMain(["hooks", "update", id, "--object", object, "--kv", kv]);
    // A platform that quotes the callback it refuses.
    platform.override = async (req) => {
      if (req.method !== "PUT") return undefined;
      const { callback } = await req.json();
      return Response.json({ error: { status: 400, message: `callback ${callback} is not reachable` } }, {
        status: 400,
      });
    };
    const callback = `https://receiver:${PASSWORD}@new.example/hooks/1`;
    const refusedCallback = await runMain(["hooks", "update", id, "--callback", callback, "--kv", kv]);
    platform.override = undefined;

    for (const run of [refusedObject, refusedCallback]) {
      assert.equal(run.code, 1, run.err);
      assert.match(run.err, /^Error: PUT .* 400/);
      assert.ok(!run.out.includes(PASSWORD) && !run.err.includes(PASSWORD), `the password printed: ${run.err}`);
    }
    assert.match(refusedObject.err, /https:\/\/reader:\*\*\*@acme\.example/);
    assert.match(refusedCallback.err, /https:\/\/receiver:\*\*\*@new\.example/);
    const after = await runMain(["hooks", "find", "--id", id, "--kv", kv, "--json"]);
    assert.deepEqual(JSON.parse(after.out), JSON.parse(before.out), "the record changed");
  });
});
