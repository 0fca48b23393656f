// `cli receive`'s stderr line of a 5xx named the header's tenant id whole: a
// request to the receiver while its KV is lost is answered 500 before any
// signature is checked (no community can be read), so anyone could have each
// such line carry a made-up tenant id of up to 1 KiB, six times that once its
// control characters are escaped. The id is now cut short, and says so.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { withSetup } from "./_cli_setup.ts";
import { withReceiveOnLostKv } from "./_receive_lost.ts";

Deno.test("cli receive: a 5xx line names a forged 1,000-character tenant id cut short, not whole", async () => {
  await withSetup(async (kv) => {
    await withReceiveOnLostKv(kv, async (run) => {
      await run.lose();
      const tenantId = "\u001b".repeat(1000);
      const authorization = await signJiveExtn(
        { clientId: "anyone", jiveUrl: "https://forged.example", tenantId, timestamp: Date.now() },
        btoa("not-a-secret-of-any-community"),
      );
      const res = await fetch(new URL("/hooks", run.url), { method: "POST", headers: { authorization }, body: "[]" });
      await res.body?.cancel();
      assert.ok(res.status >= 500, `the forged postback's answer: ${res.status}`);
      const { stdout, stderr } = await run.stop();
      const lines = stderr.split("\n").filter((line) => /^\d{4}-\d\d-\d\dT.* 5\d\d /.test(line));
      assert.equal(lines.length, 1, `not one line for the one 5xx: ${stderr.slice(0, 500)}`);
      assert.ok(lines[0].length < 600, `the line is ${lines[0].length} characters: ${lines[0].slice(0, 200)}…`);
      assert.match(
        lines[0],
        /tenant "(\\u001b){10,}…"/,
        `the tenant id is not shown cut: ${lines[0].slice(0, 200)}`,
      );
      assert.equal(stdout, "");
    });
  });
});
