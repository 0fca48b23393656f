// Who and what the sandbox's REST API lets in: 401 without a valid token,
// expired and expiring access tokens, and 413 for a body over 64 KiB.

import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { bearer, contentHook, jive, party, refreshGrant, register, signIn, withSandbox } from "./_mounted.ts";

Deno.test("the REST API answers 401 with the platform's error body without a valid token", async () => {
  await withSandbox(async (env) => {
    const hook = contentHook(env, "http://127.0.0.1:1/cb");
    for (const token of [null, "not-a-token"]) {
      const response = await register(env, token, hook);
      assert.equal(response.status, 401);
      const body = await jive(response);
      assert.equal(body.error.status, 401);
      assert.equal(typeof body.error.message, "string");
    }
    const list = await fetch(`${env.base}/api/core/v3/webhooks`);
    assert.equal(list.status, 401);
    await list.body?.cancel();
  });
});

Deno.test("expireTokens() makes issued access tokens answer 401 until a refresh", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const before = await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:1/a"));
    assert.equal(before.status, 200);
    await before.body?.cancel();
    assert.equal(await env.sandbox.expireTokens(), 1);
    const after = await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:1/b"));
    assert.equal(after.status, 401);
    assert.deepEqual(await jive(after), {
      error: { status: 401, message: "The access token has expired" },
    });
    const p = await party(env, "community");
    const renewed = await oauth.processRefreshTokenResponse(
      p.as,
      p.client,
      await refreshGrant(p, tokens.refresh_token!),
    );
    const retried = await register(env, renewed.access_token, contentHook(env, "http://127.0.0.1:1/b"));
    assert.equal(retried.status, 200);
    await retried.body?.cancel();
  });
});

Deno.test("access tokens expire after tokenTtlSeconds", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    assert.equal(tokens.expires_in, 60);
    const get = () => fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token));
    env.clock.now += 59_000;
    const fresh = await get();
    assert.equal(fresh.status, 200);
    await fresh.body?.cancel();
    env.clock.now += 1_000;
    const stale = await get();
    assert.equal(stale.status, 401);
    assert.equal((await jive(stale)).error.message, "The access token has expired");
  }, { tokenTtlSeconds: 60 });
});

Deno.test("the REST API refuses a body over 64 KiB with 413", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const response = await register(env, tokens.access_token, {
      ...contentHook(env, "http://127.0.0.1:1/cb"),
      padding: "x".repeat(70 * 1024),
    });
    assert.equal(response.status, 413);
    assert.equal((await jive(response)).error.status, 413);
  });
});
