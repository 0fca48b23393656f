// A sandbox access token's record, as KV keeps it, edited by hand (or left by a bad write) into junk: a number, a
// string, null, an object without a tenant, an expiry that is no time (NaN, text, missing). The token opens neither
// the REST API nor userinfo: 401, never a 500, never a token that does not expire. A record as made still works.

import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { SANDBOX_KV_PREFIX } from "../../sandbox/mod.ts";
import { withServed } from "./_served.ts";

const JUNK: unknown[] = [5, "x", null, [], { tenantId: 5 }, { tenantId: "" }, { expiresAt: "x" }, { expiresAt: NaN }, {
  expiresAt: undefined,
}];

Deno.test("sandbox: an access token's record edited into junk opens nothing: 401, not 500 nor for ever", async () => {
  await withServed(async ({ kv, base, sandbox }) => {
    for (const value of JUNK) {
      const { accessToken } = await sandbox.issueTokens();
      const key = [...SANDBOX_KV_PREFIX, "access", hash("sha256", accessToken, "hex")];
      const record = (await kv.get<Record<string, unknown>>(key)).value;
      assert.ok(record, "the access token's record is kept where this test edits it");
      const edited = typeof value === "object" && value !== null && !Array.isArray(value)
        ? { ...record, ...value }
        : value;
      await kv.set(key, edited);
      const shown = JSON.stringify(value);
      const headers = { Authorization: `Bearer ${accessToken}` };
      for (const path of ["/api/core/v3/webhooks", "/oauth2/userinfo"]) {
        const res = await fetch(`${base}${path}`, { headers });
        await res.body?.cancel();
        assert.equal(res.status, 401, `${path} with the record ${shown}`);
      }
    }
    const { accessToken } = await sandbox.issueTokens();
    const res = await fetch(`${base}/oauth2/userinfo`, { headers: { Authorization: `Bearer ${accessToken}` } });
    await res.body?.cancel();
    assert.equal(res.status, 200, "a record as made still opens userinfo");
  });
});
