// A sandbox refresh token's record, as KV keeps it, edited by hand (or left by a bad write) into junk: a number, a
// string, a list, an object without its texts, an expiry that is no time (text, NaN). The refresh grant is refused
// as an unknown token (400 invalid_grant), never a 500 and never a refresh token that does not expire. A record as
// made (and one of an older sandbox, without an expiry) still renews.

import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { SANDBOX_KV_PREFIX } from "../../sandbox/mod.ts";
import { signIn, tokenRequest, withSandbox } from "./_mounted.ts";

const JUNK: unknown[] = [5, "x", [], { scope: 5 }, { sub: null }, { refreshExpiresAt: "x" }, {
  refreshExpiresAt: NaN,
}];

Deno.test("sandbox: a refresh token's record edited into junk renews nothing: 400 invalid_grant, not 500 nor for ever", async () => {
  await withSandbox(async (env) => {
    const community = await env.sandbox.communityFor(env.origin);
    const basic = { Authorization: `Basic ${btoa(`${community.clientId}:${community.clientSecret}`)}` };
    for (const value of JUNK) {
      const tokens = await signIn(env);
      const key = [...SANDBOX_KV_PREFIX, "refresh", hash("sha256", tokens.refresh_token!, "hex")];
      const record = (await env.kv.get<Record<string, unknown>>(key)).value;
      assert.ok(record, "the refresh token's record is kept where this test edits it");
      const edited = typeof value === "object" && value !== null && !Array.isArray(value)
        ? { ...record, ...value }
        : value;
      await env.kv.set(key, edited);
      const res = await tokenRequest(env, { grant_type: "refresh_token", refresh_token: tokens.refresh_token! }, basic);
      const shown = JSON.stringify(value);
      assert.equal(res.status, 400, `the record ${shown}`);
      assert.equal((await res.json()).error, "invalid_grant", `the record ${shown}`);
    }
    for (const older of [false, true]) {
      const tokens = await signIn(env);
      if (older) {
        const key = [...SANDBOX_KV_PREFIX, "refresh", hash("sha256", tokens.refresh_token!, "hex")];
        const { refreshExpiresAt: _, ...record } = (await env.kv.get<Record<string, unknown>>(key)).value!;
        await env.kv.set(key, record);
      }
      const res = await tokenRequest(env, { grant_type: "refresh_token", refresh_token: tokens.refresh_token! }, basic);
      assert.equal(
        res.status,
        200,
        older ? "a record without an expiry (an older sandbox's) still renews" : "a record as made still renews",
      );
      await res.body?.cancel();
    }
  });
});
