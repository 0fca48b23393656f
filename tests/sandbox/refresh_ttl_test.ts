// Refresh tokens lived 30 days whatever the sandbox was told, so a test of what an app does when its refresh token
// runs out could only move the clock a month. `refreshTokenTtlSeconds` sets their lifetime (default 30 days, as
// before), checked as `tokenTtlSeconds` is; the grant's revocation markers are kept as long as its tokens may live.

import assert from "node:assert/strict";
import { createSandbox } from "../../sandbox/mod.ts";
import { signIn, tokenRequest, withSandbox } from "./_mounted.ts";

/** A refresh grant of `refreshToken` by the community client (Module A's renewal). */
async function refresh(env: Parameters<Parameters<typeof withSandbox>[0]>[0], refreshToken: string) {
  const community = await env.sandbox.communityFor(env.origin);
  const response = await tokenRequest(env, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: community.clientId,
    client_secret: community.clientSecret,
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("refreshTokenTtlSeconds: a refresh token runs out after it, by the sandbox's clock", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    env.clock.now += 119_000;
    const renewed = await refresh(env, tokens.refresh_token!);
    assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
    assert.equal(renewed.body.expires_in, 60, "tokenTtlSeconds still sets the access token's");
    env.clock.now += 121_000;
    const late = await refresh(env, renewed.body.refresh_token);
    assert.equal(late.status, 400);
    assert.equal(late.body.error, "invalid_grant");
    assert.match(late.body.error_description, /expired/);
    // Issued by hand too.
    const given = await env.sandbox.issueTokens();
    env.clock.now += 121_000;
    assert.equal((await refresh(env, given.refreshToken)).body.error, "invalid_grant");
  }, { tokenTtlSeconds: 60, refreshTokenTtlSeconds: 120 });
});

Deno.test("refreshTokenTtlSeconds that is not a positive integer is a RangeError naming it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => createSandbox({ kv, refreshTokenTtlSeconds: bad }),
        (e: unknown) =>
          e instanceof RangeError && /'refreshTokenTtlSeconds' must be a positive integer/.test(e.message),
      );
    }
  } finally {
    kv.close();
  }
});
