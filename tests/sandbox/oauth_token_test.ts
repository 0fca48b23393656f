// The sandbox's OAuth token endpoint: single-use codes, refresh token
// rotation, Module A's renewal with Basic credentials, and RFC 6749 errors.

import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { authorize, bearer, insecure, party, refreshGrant, signIn, tokenRequest, withSandbox } from "./_mounted.ts";

Deno.test("an authorization code works once, with its verifier and redirect_uri, within 60 s", async () => {
  await withSandbox(async (env) => {
    const p = await party(env, "community");
    const exchange = (params: URLSearchParams, verifier: string, redirect = p.redirectUri) =>
      oauth.authorizationCodeGrantRequest(
        p.as,
        p.client,
        p.auth,
        params,
        redirect,
        verifier,
        insecure,
      );
    const expectGrantError = async (response: Response, description: RegExp) => {
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.equal(body.error, "invalid_grant");
      assert.match(body.error_description, description);
    };

    // Used twice.
    let flow = await authorize(env, p);
    let params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
    const first = await exchange(params, flow.verifier);
    assert.equal(first.status, 200);
    await first.body?.cancel();
    await expectGrantError(await exchange(params, flow.verifier), /already used/);

    // Wrong verifier.
    flow = await authorize(env, p);
    params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
    await expectGrantError(
      await exchange(params, oauth.generateRandomCodeVerifier()),
      /code_verifier does not match/,
    );

    // Wrong redirect_uri.
    flow = await authorize(env, p);
    params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
    await expectGrantError(
      await exchange(params, flow.verifier, "http://localhost:9999/other"),
      /redirect_uri differs/,
    );

    // Expired: 61 s later.
    flow = await authorize(env, p);
    params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
    env.clock.now += 61_000;
    await expectGrantError(await exchange(params, flow.verifier), /expired/);

    // Issued to another client.
    env.clock.now -= 61_000;
    flow = await authorize(env, p);
    params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
    const other = await party(env, "console");
    const stolen = await oauth.authorizationCodeGrantRequest(
      other.as,
      other.client,
      other.auth,
      params,
      p.redirectUri,
      flow.verifier,
      insecure,
    );
    await expectGrantError(stolen, /another client/);
  });
});

Deno.test("refresh_token grant rotates: the new pair works, the old refresh token does not", async () => {
  await withSandbox(async (env) => {
    const p = await party(env, "community");
    const tokens = await signIn(env);
    const renewed = await oauth.processRefreshTokenResponse(
      p.as,
      p.client,
      await refreshGrant(p, tokens.refresh_token!),
    );
    assert.notEqual(renewed.access_token, tokens.access_token);
    assert.notEqual(renewed.refresh_token, tokens.refresh_token);
    assert.equal(renewed.expires_in, 3600);
    const list = await fetch(`${env.base}/api/core/v3/webhooks`, bearer(renewed.access_token));
    assert.equal(list.status, 200);
    await list.body?.cancel();
    const reused = await refreshGrant(p, tokens.refresh_token!);
    assert.equal(reused.status, 400);
    assert.equal((await reused.json()).error, "invalid_grant");
    // No reuse detection (docs/sandbox.md): the spent token's second use revoked nothing. The renewed access token
    // still works, and the renewed refresh token is good for one more rotation.
    const still = await fetch(`${env.base}/api/core/v3/webhooks`, bearer(renewed.access_token));
    assert.equal(still.status, 200);
    await still.body?.cancel();
    const again = await refreshGrant(p, renewed.refresh_token!);
    assert.equal(again.status, 200);
    await again.body?.cancel();
  });
});

Deno.test("the token endpoint takes Module A's renewal: raw Basic credentials plus client_id in the form", async () => {
  await withSandbox(async (env) => {
    const community = await env.sandbox.communityFor(env.origin);
    const tokens = await signIn(env);
    // The secret holds "+", "/" or "=" often enough; send it unencoded.
    const response = await tokenRequest(env, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: community.clientId,
    }, {
      Authorization: `Basic ${btoa(`${community.clientId}:${community.clientSecret}`)}`,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const body = await response.json();
    assert.deepEqual(Object.keys(body).sort(), [
      "access_token",
      "expires_in",
      "refresh_token",
      "scope",
      "token_type",
    ]);
    // client_secret_post is accepted too.
    const post = await tokenRequest(env, {
      grant_type: "refresh_token",
      refresh_token: body.refresh_token,
      client_id: community.clientId,
      client_secret: community.clientSecret,
    });
    assert.equal(post.status, 200);
    await post.body?.cancel();
  });
});

Deno.test("the token endpoint answers RFC 6749 errors", async () => {
  await withSandbox(async (env) => {
    const community = await env.sandbox.communityFor(env.origin);
    const basic = (secret: string) => ({
      Authorization: `Basic ${btoa(`${community.clientId}:${secret}`)}`,
    });
    const expect = async (
      response: Response,
      status: number,
      error: string,
    ) => {
      assert.equal(response.status, status, error);
      const body = await response.json();
      assert.equal(body.error, error);
      assert.equal(typeof body.error_description, "string");
      assert.ok(!JSON.stringify(body).includes(community.clientSecret));
      return response;
    };
    const wrong = await expect(
      await tokenRequest(env, { grant_type: "refresh_token", refresh_token: "x" }, basic("wrong")),
      401,
      "invalid_client",
    );
    assert.match(wrong.headers.get("www-authenticate") ?? "", /^Basic/);
    await expect(
      await tokenRequest(env, { grant_type: "refresh_token", refresh_token: "x" }),
      401,
      "invalid_client",
    );
    await expect(
      await tokenRequest(env, {
        grant_type: "refresh_token",
        refresh_token: "x",
        client_id: "nobody",
        client_secret: "x",
      }),
      401,
      "invalid_client",
    );
    await expect(
      await tokenRequest(env, { grant_type: "password" }, basic(community.clientSecret)),
      400,
      "unsupported_grant_type",
    );
    await expect(
      await tokenRequest(env, {}, basic(community.clientSecret)),
      400,
      "invalid_request",
    );
    await expect(
      await tokenRequest(env, { grant_type: "refresh_token", refresh_token: "unknown" }, basic(community.clientSecret)),
      400,
      "invalid_grant",
    );
    await expect(
      await tokenRequest(env, {
        grant_type: "authorization_code",
        code: "unknown",
        redirect_uri: "http://x/",
        code_verifier: "v".repeat(43),
      }, basic(community.clientSecret)),
      400,
      "invalid_grant",
    );
    await expect(
      await fetch(`${env.base}/oauth2/token`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...basic(community.clientSecret) },
        body: JSON.stringify({ grant_type: "refresh_token" }),
      }),
      400,
      "invalid_request",
    );
  });
});
