// The sandbox's OAuth authorization endpoint: sign-in with code + PKCE, the
// consent page (approve, deny), the 400s for a bad request or redirect URI,
// and the refusal of a cross-site form post.

import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { createSandbox } from "../../sandbox/mod.ts";
import { authorize, consentForm, insecure, party, signIn, withSandbox } from "./_mounted.ts";

Deno.test("the console signs in with authorization code + PKCE and reads userinfo", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env, "console");
    assert.equal(tokens.token_type, "bearer");
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, "sandbox");
    assert.ok(tokens.refresh_token);
    const p = await party(env, "console");
    const response = await oauth.userInfoRequest(
      p.as,
      p.client,
      tokens.access_token,
      insecure,
    );
    const info = await oauth.processUserInfoResponse(
      p.as,
      p.client,
      "sandbox-user",
      response,
    );
    assert.equal(info.name, "Sandbox User");
    const anonymous = await fetch(`${env.base}/oauth2/userinfo`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("www-authenticate") ?? "", /Bearer/);
    await anonymous.body?.cancel();
  });
});

Deno.test("the consent page names the user and the state comes back on approval", async () => {
  await withSandbox(async (env) => {
    const p = await party(env, "community");
    const url = new URL(p.as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: p.client.client_id,
      redirect_uri: p.redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge("x".repeat(43)),
      code_challenge_method: "S256",
      state: "s-1",
    }).toString();
    const form = await consentForm(url);
    assert.match(form.text, /Sandbox User/);
    assert.equal(form.fields.state, "s-1");
    assert.equal(form.fields.redirect_uri, p.redirectUri);
    const { callback, state } = await authorize(env, p);
    assert.equal(callback.origin + callback.pathname, p.redirectUri);
    assert.equal(callback.searchParams.get("state"), state);
    assert.ok(callback.searchParams.get("code"));
  });
});

Deno.test("Deny sends the browser back with error=access_denied", async () => {
  await withSandbox(async (env) => {
    const p = await party(env, "console");
    const { callback, state } = await authorize(env, p, {}, "deny");
    assert.equal(callback.searchParams.get("error"), "access_denied");
    assert.equal(callback.searchParams.get("state"), state);
    assert.equal(callback.searchParams.get("code"), null);
    assert.throws(
      () => oauth.validateAuthResponse(p.as, p.client, callback, state),
      oauth.AuthorizationResponseError,
    );
  });
});

Deno.test("GET /oauth2/authorize answers 400 naming what is wrong", async () => {
  await withSandbox(async (env) => {
    const console_ = await party(env, "console");
    const community = await party(env, "community");
    const good = {
      response_type: "code",
      client_id: console_.client.client_id,
      redirect_uri: console_.redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge("v".repeat(50)),
      code_challenge_method: "S256",
    };
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ client_id: undefined }, /client_id is missing/],
      [{ client_id: "nobody" }, /client_id &quot;nobody&quot; is not a client/],
      [{ redirect_uri: undefined }, /redirect_uri is missing/],
      [{ redirect_uri: "/relative" }, /is not an absolute URL/],
      [{ redirect_uri: "javascript:alert(1)" }, /must be an http\(s\) URL/],
      [
        { redirect_uri: "http://evil.example/cb" },
        /is not registered for the console&#39;s client/,
      ],
      [
        { redirect_uri: `${env.origin}/cb#frag` },
        /must not have a fragment/,
      ],
      [{ response_type: "token" }, /response_type must be &quot;code&quot;/],
      [{ code_challenge: undefined }, /code_challenge is missing/],
      [
        { code_challenge_method: "plain" },
        /code_challenge_method must be &quot;S256&quot;, got &quot;plain&quot;/,
      ],
      [{ code_challenge_method: undefined }, /code_challenge_method must be/],
      [{ code_challenge: "short" }, /43 to 128 characters/],
    ];
    for (const [change, pattern] of cases) {
      const params = { ...good, ...change };
      const url = new URL(console_.as.authorization_endpoint!);
      for (const [k, v] of Object.entries(params)) {
        if (v !== undefined) url.searchParams.set(k, v);
      }
      const response = await fetch(url);
      assert.equal(response.status, 400, JSON.stringify(change));
      const html = await response.text();
      assert.match(html, pattern, JSON.stringify(change));
    }
    // The community's client: its registered redirect URI is accepted.
    const url = new URL(community.as.authorization_endpoint!);
    url.search = new URLSearchParams({
      ...good,
      client_id: community.client.client_id,
      redirect_uri: community.redirectUri,
    }).toString();
    const ok = await fetch(url);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  });
});

Deno.test("the community's client is sent back only to a registered redirect URI: others get 400, never a 303", async () => {
  await withSandbox(async (env) => {
    const community = await party(env, "community");
    const challenge = await oauth.calculatePKCECodeChallenge("v".repeat(50));
    const request = (redirect_uri: string) => ({
      response_type: "code",
      client_id: community.client.client_id,
      redirect_uri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st",
    });
    const elsewhere = [
      "https://evil.example/cb",
      "http://169.254.169.254/",
      `${env.origin}/auth/community/callback/../../evil`,
      `${env.origin}/auth/community/callback?next=https://evil.example/`,
      `${env.origin}/elsewhere`,
      "http://other.example:8000/auth/community/callback",
    ];
    for (const redirect of elsewhere) {
      const page = await fetch(`${env.base}/oauth2/authorize?${new URLSearchParams(request(redirect))}`);
      assert.equal(page.status, 400, redirect);
      assert.match(await page.text(), /is not registered for the community&#39;s client/, redirect);
      for (const decision of ["approve", "deny"]) {
        const posted = await fetch(`${env.base}/oauth2/authorize`, {
          method: "POST",
          headers: { Origin: env.origin },
          body: new URLSearchParams({ ...request(redirect), decision }),
          redirect: "manual",
        });
        await posted.body?.cancel();
        assert.equal(posted.status, 400, `${decision} ${redirect}`);
        assert.equal(posted.headers.get("location"), null);
      }
    }
    // A console at another origin that asked for the community's record (two consoles on one KV) is registered.
    await env.sandbox.communityFor("http://other.example:8000");
    const approved = await fetch(`${env.base}/oauth2/authorize`, {
      method: "POST",
      headers: { Origin: env.origin },
      body: new URLSearchParams({
        ...request("http://other.example:8000/auth/community/callback"),
        decision: "approve",
      }),
      redirect: "manual",
    });
    await approved.body?.cancel();
    assert.equal(approved.status, 303);
    const back = new URL(approved.headers.get("location")!);
    assert.equal(back.origin + back.pathname, "http://other.example:8000/auth/community/callback");
    assert.equal(back.searchParams.get("state"), "st");
  });
});

Deno.test("communityRedirectPath sets the community's redirect URI, and a bad one is refused by name", async () => {
  await withSandbox(async (env) => {
    const community = await env.sandbox.communityFor(env.origin);
    const challenge = await oauth.calculatePKCECodeChallenge("v".repeat(50));
    const page = (path: string) =>
      fetch(
        `${env.base}/oauth2/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: community.clientId,
          redirect_uri: `${env.origin}${path}`,
          code_challenge: challenge,
          code_challenge_method: "S256",
        })}`,
      );
    const custom = await page("/connect/done");
    assert.equal(custom.status, 200);
    await custom.body?.cancel();
    const usual = await page("/auth/community/callback");
    assert.equal(usual.status, 400);
    await usual.body?.cancel();
  }, { communityRedirectPath: "/connect/done" });
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => createSandbox({ kv, communityRedirectPath: "connect" }),
      (err) =>
        err instanceof TypeError &&
        err.message ===
          `Cannot create sandbox: 'communityRedirectPath' must be a path such as "/auth/community/callback", got "connect"`,
    );
  } finally {
    kv.close();
  }
});

Deno.test("POST /oauth2/authorize refuses a cross-site form post", async () => {
  await withSandbox(async (env) => {
    const p = await party(env, "console");
    const body = new URLSearchParams({
      response_type: "code",
      client_id: p.client.client_id,
      redirect_uri: p.redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge("v".repeat(50)),
      code_challenge_method: "S256",
      decision: "approve",
    });
    const variants: Record<string, string>[] = [{}, {
      Origin: "http://evil.example",
    }];
    for (const headers of variants) {
      const response = await fetch(`${env.base}/oauth2/authorize`, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
      });
      assert.equal(response.status, 403);
      assert.equal(response.headers.get("location"), null);
      await response.body?.cancel();
    }
  });
});
