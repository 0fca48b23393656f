// A hook keeps the address it was registered under, `{origin}{basePath}`,
// whose origin comes from the request's Host header: any client can make it
// as long as the HTTP server lets through (about 60 KB). A registration under
// a Host too long to keep is refused 400 by name, not a 500 (the record no
// longer fit one KV value), and nothing is stored.

import assert from "node:assert/strict";
import { ANTI_HIJACKING_PREFIX } from "../../sandbox/mod.ts";
import { captureConsole, rawRequest, withServed } from "./_served.ts";

Deno.test("sandbox: a registration under a Host too long to keep is refused 400 by name, and nothing is stored", async () => {
  await withServed(async ({ sandbox, port, callback }) => {
    const { accessToken } = await sandbox.issueTokens();
    const body = new TextEncoder().encode(JSON.stringify({
      events: ["user_account"],
      callback: `${callback}?${"q".repeat(8_000)}`,
    }));
    const register = (host: string) =>
      rawRequest(port, {
        method: "POST",
        target: "/sandbox/api/core/v3/webhooks",
        headers: [["Host", host], ["Authorization", `Bearer ${accessToken}`], ["Content-Type", "application/json"]],
        body,
      });
    await captureConsole(async (logged) => {
      const long = `${"a".repeat(58_000)}.example`;
      const refused = await register(long);
      assert.equal(refused.status, 400, refused.body.slice(0, 200));
      assert.ok(refused.body.startsWith(ANTI_HIJACKING_PREFIX));
      assert.deepEqual(JSON.parse(refused.body.slice(ANTI_HIJACKING_PREFIX.length)), {
        error: { status: 400, message: "The request's origin must be at most 8192 characters, got 58015" },
      });
      assert.deepEqual(await sandbox.listHooks(), []);
      assert.deepEqual(logged, []);

      const kept = await register(`${"a".repeat(8_000)}.example`);
      assert.equal(kept.status, 200, kept.body.slice(0, 200));
      assert.equal((await sandbox.listHooks()).length, 1);
    });
  });
});
