// `cli receive` answering a postback it cannot store (its KV lost) with a 500,
// which the platform retries, printed nothing on stderr: an operator watching
// it saw nothing wrong. Each answer of 500 or more now prints one line on
// stderr (the time, the status, the tenant id, the receiver's reason), never
// the signature or the body; a 4xx answer stays quiet (a flood of them must
// not flood stderr).

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { ACME_HOOK_REF, SECRET, seedAcmeHook, withSetup } from "./_cli_setup.ts";
import { withReceiveOnLostKv } from "./_receive_lost.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

const REF = ACME_HOOK_REF;

Deno.test("cli receive: a postback answered 500 (the KV lost) prints one line on stderr; a 401 prints none", async () => {
  await withSetup(async (kv) => {
    await seedAcmeHook(kv);
    await withReceiveOnLostKv(kv, async (run) => {
      const body = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "BODY-TEXT-X" } }]);
      const post = (authorization: string) =>
        fetch(new URL("/hooks", run.url), { method: "POST", headers: { authorization }, body });
      const forged = await post("JiveEXTN tenant_id=tenant-acme&signature=FORGED-SIG-X");
      await forged.body?.cancel();
      assert.equal(forged.status, 401);
      await run.lose();
      const authorization = await signJiveExtn(
        { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme", timestamp: Date.now() },
        SECRET,
      );
      const lost = await post(authorization);
      await lost.body?.cancel();
      assert.ok(lost.status >= 500, `the postback's answer: ${lost.status}`);
      const { stdout, stderr } = await run.stop();
      const signature = /signature=([^&\s]+)/.exec(authorization)![1];
      for (const secret of [signature, "FORGED-SIG-X", "BODY-TEXT-X", TEST_TOKEN, SECRET]) {
        assert.ok(!stderr.includes(secret), `stderr holds a secret or the body: ${stderr}`);
      }
      const lines = stderr.split("\n").filter((line) => /\b[45]\d\d\b/.test(line));
      assert.equal(lines.length, 1, `not one line for the one 5xx (and none for the 401): ${stderr}`);
      assert.match(lines[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /, `no time first: ${lines[0]}`);
      assert.match(lines[0], new RegExp(`\\b${lost.status}\\b`));
      assert.match(lines[0], /tenant-acme/);
      assert.equal(stdout, "");
    });
  });
});
