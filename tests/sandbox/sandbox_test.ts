import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { Hono } from "hono";
import * as oauth from "oauth4webapi";
import { verifyJiveExtn } from "../../webhooks/mod.ts";
import {
  ANTI_HIJACKING_PREFIX,
  createSandbox,
  type Sandbox,
  SANDBOX_COMMUNITY,
  type SandboxOptions,
} from "../../sandbox/mod.ts";

// ---------------------------------------------------------------------------
// Harness: the sandbox mounted under /sandbox in a tiny Hono app, served by a
// real Deno.serve on 127.0.0.1, with a real in-memory KV.

interface Env {
  kv: Deno.Kv;
  sandbox: Sandbox;
  origin: string;
  base: string;
  clock: { now: number };
}

async function withSandbox(
  fn: (env: Env) => Promise<void>,
  options: Partial<SandboxOptions> = {},
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const clock = { now: Date.now() };
  const sandbox = createSandbox({ kv, now: () => clock.now, ...options });
  const app = new Hono();
  app.route("/sandbox", sandbox.app);
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    app.fetch,
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    await fn({ kv, sandbox, origin, base: `${origin}/sandbox`, clock });
  } finally {
    await server.shutdown();
    kv.close();
  }
}

interface Received {
  headers: Headers;
  body: string;
}

/** A postback receiver on 127.0.0.1 that answers `status`. */
async function withReceiver(
  fn: (url: string, received: Received[]) => Promise<void>,
  status = 204,
): Promise<void> {
  const received: Received[] = [];
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (request) => {
      received.push({ headers: request.headers, body: await request.text() });
      return new Response(null, { status });
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/hooks/receive`, received);
  } finally {
    await server.shutdown();
  }
}

/** Parses a REST API answer: checks and strips the anti-hijacking line. */
// deno-lint-ignore no-explicit-any
async function jive(response: Response): Promise<any> {
  const text = await response.text();
  assert.ok(
    text.startsWith(ANTI_HIJACKING_PREFIX),
    `no anti-hijacking line in ${text.slice(0, 80)}`,
  );
  return JSON.parse(text.slice(ANTI_HIJACKING_PREFIX.length));
}

const insecure = { [oauth.allowInsecureRequests]: true };

interface Party {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  clientSecret: string;
  redirectUri: string;
}

async function party(
  env: Env,
  kind: "console" | "community",
): Promise<Party> {
  const as = env.sandbox.authorizationServerFor(env.origin);
  const c = kind === "console"
    ? await env.sandbox.oauthClientFor(env.origin)
    : await env.sandbox.communityFor(env.origin);
  return {
    as,
    client: { client_id: c.clientId },
    auth: oauth.ClientSecretBasic(c.clientSecret),
    clientSecret: c.clientSecret,
    redirectUri: kind === "console" ? `${env.origin}/auth/callback` : `${env.origin}/auth/community/callback`,
  };
}

/** Asks the token endpoint for a refresh_token grant as party `p`. */
function refreshGrant(p: Party, refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(p.as, p.client, p.auth, refreshToken, insecure);
}

/** Opens the consent page and reads its form with happy-dom. */
async function consentForm(
  url: URL,
): Promise<{ action: string; fields: Record<string, string>; text: string }> {
  const response = await fetch(url);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/html/);
  const html = await response.text();
  const window = new Window({ url: url.href });
  try {
    const doc = new window.DOMParser().parseFromString(html, "text/html");
    const form = doc.querySelector("form#consent");
    assert.ok(form, "the consent page has a form");
    assert.equal(form.getAttribute("method"), "post");
    const fields: Record<string, string> = {};
    for (const input of form.querySelectorAll("input[type=hidden]")) {
      fields[input.getAttribute("name")!] = input.getAttribute("value")!;
    }
    assert.equal(doc.querySelector("#approve")?.textContent, "Approve");
    return {
      action: form.getAttribute("action")!,
      fields,
      text: doc.body.textContent ?? "",
    };
  } finally {
    await window.happyDOM.close();
  }
}

/** Goes through consent (Approve) and returns the redirect's URL. */
async function authorize(
  env: Env,
  p: Party,
  extra: Record<string, string> = {},
  decision = "approve",
): Promise<{ callback: URL; verifier: string; state: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(p.as.authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", p.client.client_id);
  url.searchParams.set("redirect_uri", p.redirectUri);
  url.searchParams.set("state", state);
  url.searchParams.set(
    "code_challenge",
    await oauth.calculatePKCECodeChallenge(verifier),
  );
  url.searchParams.set("code_challenge_method", "S256");
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  const form = await consentForm(url);
  assert.equal(form.action, "/sandbox/oauth2/authorize");
  const response = await fetch(new URL(form.action, env.origin), {
    method: "POST",
    headers: { Origin: env.origin },
    body: new URLSearchParams({ ...form.fields, decision }),
    redirect: "manual",
  });
  assert.equal(response.status, 303);
  await response.body?.cancel();
  return {
    callback: new URL(response.headers.get("location")!),
    verifier,
    state,
  };
}

/** The full authorization code + PKCE flow through oauth4webapi. */
async function signIn(
  env: Env,
  kind: "console" | "community" = "community",
): Promise<oauth.TokenEndpointResponse> {
  const p = await party(env, kind);
  const { callback, verifier, state } = await authorize(env, p);
  const params = oauth.validateAuthResponse(p.as, p.client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    p.as,
    p.client,
    p.auth,
    params,
    p.redirectUri,
    verifier,
    insecure,
  );
  return await oauth.processAuthorizationCodeResponse(p.as, p.client, response);
}

function register(
  env: Env,
  token: string | null,
  body: unknown,
): Promise<Response> {
  return fetch(`${env.base}/api/core/v3/webhooks`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function bearer(token: string): RequestInit {
  return { headers: { Authorization: `Bearer ${token}` } };
}

function tokenRequest(
  env: Env,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${env.base}/oauth2/token`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body: new URLSearchParams(form),
  });
}

function contentHook(env: Env, callback: string): Record<string, unknown> {
  return {
    events: ["discussion", "document"],
    object: env.sandbox.placeFor(env.origin),
    callback,
  };
}

// ---------------------------------------------------------------------------
// Construction and records

Deno.test("createSandbox() rejects bad options with TypeError or RangeError", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => createSandbox({} as SandboxOptions),
      new TypeError("Cannot create sandbox: 'kv' must be a Deno.Kv, got undefined"),
    );
    assert.throws(
      () => createSandbox({ kv, basePath: "/sandbox/" }),
      (e: Error) =>
        e instanceof TypeError && e.message.includes("'basePath'") &&
        e.message.includes('"/sandbox/"'),
    );
    assert.throws(
      () => createSandbox({ kv, tokenTtlSeconds: 0 }),
      new RangeError(
        "Cannot create sandbox: 'tokenTtlSeconds' must be a positive integer, got 0",
      ),
    );
    assert.throws(
      () => createSandbox({ kv, fetch: "no" as unknown as typeof fetch }),
      TypeError,
    );
  } finally {
    kv.close();
  }
});

Deno.test("communityFor() gives a stable record whose secret works for JiveEXTN and is kept in KV", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const first = await createSandbox({ kv }).communityFor(
      "http://localhost:8000/",
    );
    assert.equal(first.name, "Sandbox");
    assert.equal(first.tenantId, "sandbox-tenant");
    assert.equal(first.baseUrl, "http://localhost:8000/sandbox");
    assert.match(first.clientId, /\.i$/);
    assert.match(first.clientSecret, /^[A-Za-z0-9+/]+=*\.s$/);
    assert.equal(atob(first.clientSecret.slice(0, -2)).length, 32);
    // A second sandbox on the same KV (a restart) sees the same client.
    const again = await createSandbox({ kv, basePath: "/sb" }).communityFor(
      "https://example.test",
    );
    assert.equal(again.clientId, first.clientId);
    assert.equal(again.clientSecret, first.clientSecret);
    assert.equal(again.baseUrl, "https://example.test/sb");
    assert.deepEqual(Object.keys(first).sort(), [
      "baseUrl",
      "clientId",
      "clientSecret",
      "name",
      "tenantId",
    ]);
    assert.throws(
      () => createSandbox({ kv }).authorizationServerFor("ftp://x"),
      TypeError,
    );
    await assert.rejects(
      () => createSandbox({ kv }).communityFor("not a url"),
      TypeError,
    );
  } finally {
    kv.close();
  }
});

Deno.test("oauthClientFor() describes the console's sign-in client", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const sandbox = createSandbox({ kv });
    const client = await sandbox.oauthClientFor("http://localhost:8000");
    assert.equal(
      client.authorizationEndpoint,
      "http://localhost:8000/sandbox/oauth2/authorize",
    );
    assert.equal(
      client.tokenEndpoint,
      "http://localhost:8000/sandbox/oauth2/token",
    );
    assert.equal(
      client.userinfoEndpoint,
      "http://localhost:8000/sandbox/oauth2/userinfo",
    );
    assert.equal(client.clientId, "sandbox-console");
    assert.ok(client.clientSecret.length >= 40);
    assert.equal(client.issuer, "http://localhost:8000/sandbox");
    assert.deepEqual(client.redirectUris, ["http://localhost:8000/auth/callback"]);
    assert.deepEqual(client.authorizationServer.code_challenge_methods_supported, [
      "S256",
    ]);
    const again = await sandbox.oauthClientFor("http://localhost:8000");
    assert.equal(again.clientSecret, client.clientSecret);
    const community = await sandbox.communityFor("http://localhost:8000");
    assert.notEqual(community.clientSecret, client.clientSecret);
  } finally {
    kv.close();
  }
});

Deno.test('the sandbox keeps all its state under keys starting with "sandbox"', async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      await env.kv.set(["other", "data"], 1);
      const tokens = await signIn(env);
      await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      await env.sandbox.oauthClientFor(env.origin);
      await env.sandbox.trigger();
      const keys: Deno.KvKey[] = [];
      for await (const entry of env.kv.list({ prefix: [] })) keys.push(entry.key);
      const own = keys.filter((k) => k[0] !== "other");
      assert.ok(own.length >= 5, `keys: ${own.length}`);
      for (const key of own) assert.equal(key[0], "sandbox");
      // Tokens are stored under a hash, never in clear.
      for (const key of own) {
        assert.ok(!key.includes(tokens.access_token));
        assert.ok(!key.includes(tokens.refresh_token!));
      }
      assert.equal((await env.kv.get(["other", "data"])).value, 1);
    });
  });
});

// ---------------------------------------------------------------------------
// Pages

Deno.test("GET /sandbox shows the index with endpoints, hooks and a trigger form", async () => {
  await withSandbox(async (env) => {
    const empty = await fetch(env.base);
    assert.equal(empty.status, 200);
    const emptyHtml = await empty.text();
    assert.match(emptyHtml, /No webhook is registered yet/);
    assert.match(emptyHtml, /POST \/sandbox\/api\/core\/v3\/webhooks/);
    assert.match(emptyHtml, /<form method="post" action="\/sandbox\/trigger" id="trigger">/);
    const tokens = await signIn(env);
    const entity = await jive(
      await register(env, tokens.access_token, {
        events: ["user_account"],
        callback: "http://127.0.0.1:1/<script>alert(1)</script>",
      }),
    );
    const withSlash = await fetch(`${env.base}/`);
    assert.equal(withSlash.status, 200);
    const html = await withSlash.text();
    assert.match(html, new RegExp(`data-webhook-id="${entity.id}"`));
    assert.ok(!html.includes("<script>alert(1)"), "callback is escaped");
    assert.ok(html.includes("/%3Cscript%3Ealert(1)%3C/script%3E"), "shown as the URL the postback goes to");
    const community = await env.sandbox.communityFor(env.origin);
    assert.ok(!html.includes(community.clientSecret), "no secret on the page");
    assert.ok(html.includes(community.clientId));
  });
});

// ---------------------------------------------------------------------------
// OAuth

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
    // The renewed refresh token is good for one more rotation.
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

// ---------------------------------------------------------------------------
// REST API: authentication

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

// ---------------------------------------------------------------------------
// REST API: webhooks

Deno.test("POST /api/core/v3/webhooks registers a hook and answers the entity", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const body = contentHook(env, "http://127.0.0.1:8000/hooks/1");
    const response = await register(env, tokens.access_token, body);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /application\/json/);
    const entity = await jive(response);
    assert.match(entity.id, /^\d+$/);
    assert.deepEqual(entity.resources.self, {
      ref: `${env.base}/api/core/v3/webhooks/${entity.id}`,
      allowed: ["GET", "PUT", "DELETE"],
    });
    assert.equal(entity.object, body.object);
    assert.equal(entity.callback, body.callback);
    assert.deepEqual(entity.events, ["discussion", "document"]);
    assert.equal(entity.enabled, true);
    assert.equal(entity.buggy, false);

    const second = await jive(await register(env, tokens.access_token, body));
    assert.notEqual(second.id, entity.id);

    const got = await fetch(entity.resources.self.ref, bearer(tokens.access_token));
    assert.equal(got.status, 200);
    assert.deepEqual(await jive(got), entity);

    // A system hook: no object, events as the platform's comma string.
    const system = await jive(
      await register(env, tokens.access_token, {
        events: "user_account, social_group",
        callback: "https://receiver.example/hooks",
      }),
    );
    assert.deepEqual(system.events, ["user_account", "social_group"]);
    assert.equal("object" in system, false);
  });
});

Deno.test("POST /api/core/v3/webhooks answers 400 for what the platform refuses", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const place = env.sandbox.placeFor(env.origin);
    const cb = "http://127.0.0.1:1/cb";
    const cases: [unknown, RegExp][] = [
      ["not json", /must be a JSON object/],
      [[], /must be a JSON object/],
      [{ object: place, callback: cb }, /'events' must be a non-empty array/],
      [{ events: [], object: place, callback: cb }, /'events' must be a non-empty array/],
      [{ events: ["discussion", ""], object: place, callback: cb }, /'events' must hold non-empty strings/],
      [{ events: [3], object: place, callback: cb }, /'events' must hold non-empty strings, got 3/],
      [{ events: ["blogpost"], object: place, callback: cb }, /Unknown event "blogpost"/],
      [{ events: ["user_account", "document"], object: place, callback: cb }, /cannot be mixed with content events/],
      [{ events: ["discussion"], callback: cb }, /'object' must be the URI of a place/],
      [{ events: ["discussion"], object: " ", callback: cb }, /'object' must be the URI of a place/],
      [{ events: ["user_session"], object: place, callback: cb }, /'object' must be empty for system events/],
      [{ events: ["discussion"], object: place }, /'callback' must be an absolute http\(s\) URL, got undefined/],
      [
        { events: ["discussion"], object: place, callback: "/relative" },
        /'callback' must be an absolute http\(s\) URL, got "\/relative"/,
      ],
      [
        { events: ["discussion"], object: place, callback: "ftp://x.example/" },
        /'callback' must be an absolute http\(s\) URL/,
      ],
    ];
    for (const [body, pattern] of cases) {
      const response = await register(env, tokens.access_token, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      const error = await jive(response);
      assert.equal(error.error.status, 400);
      assert.match(error.error.message, pattern, JSON.stringify(body));
    }
    const list = await jive(await fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token)));
    assert.deepEqual(list.list, []);
  });
});

Deno.test("a content hook whose object is not a place URI is refused 400 on create and on replace", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const cb = "http://127.0.0.1:1/cb";
    const made = await jive(await register(env, tokens.access_token, contentHook(env, cb)));
    const put = (body: unknown) =>
      fetch(made.resources.self.ref, {
        method: "PUT",
        headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const bad = [
      "<script>alert(1)</script>",
      "javascript:alert(1)//places/1",
      `${env.base}/api/core/v3/places/1000"><script>alert(1)</script>`,
      `${env.base}/api/core/v3/places/abc`,
      `${env.base}/api/core/v3/webhooks/1`,
      "https://c.example/",
      "//evil.example/places/1",
      "ftp://c.example/places/1",
      "places/1",
    ];
    for (const object of bad) {
      for (
        const send of [
          () => register(env, tokens.access_token, { events: ["document"], object, callback: cb }),
          () => put({ events: ["document"], object, callback: cb }),
        ]
      ) {
        const response = await send();
        assert.equal(response.status, 400, object);
        assert.match(
          (await jive(response)).error.message,
          /^'object' must be the URI of a place, such as "https:\/\/community\.example\/api\/core\/v3\/places\/1000", got /,
          object,
        );
      }
    }
    for (const object of [env.sandbox.placeFor(env.origin), "https://c.example/api/core/v3/places/42", "/places/1"]) {
      const response = await register(env, tokens.access_token, { events: ["document"], object, callback: cb });
      assert.equal(response.status, 200, object);
      assert.equal((await jive(response)).object, object);
    }
    // Nothing refused was stored: the first hook keeps its place.
    assert.deepEqual((await env.sandbox.listHooks()).map((hook) => hook.object), [
      made.object,
      env.sandbox.placeFor(env.origin),
      "https://c.example/api/core/v3/places/42",
      "/places/1",
    ]);
  });
});

Deno.test("GET /api/core/v3/webhooks pages with startIndex, count and links.next", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const created: string[] = [];
    for (let i = 0; i < 30; i++) {
      const entity = await jive(
        await register(env, tokens.access_token, contentHook(env, `http://127.0.0.1:1/cb/${i}`)),
      );
      created.push(entity.id);
    }
    const seen: string[] = [];
    let next: string | undefined = `${env.base}/api/core/v3/webhooks?count=10`;
    let pages = 0;
    while (next) {
      const page = await jive(await fetch(next, bearer(tokens.access_token)));
      pages++;
      assert.equal(page.itemsPerPage, 10);
      assert.equal(page.startIndex, (pages - 1) * 10);
      assert.equal(page.list.length, 10);
      seen.push(...page.list.map((e: { id: string }) => e.id));
      next = page.links.next;
      if (next) {
        const url = new URL(next);
        assert.equal(url.origin + url.pathname, `${env.base}/api/core/v3/webhooks`);
        assert.equal(url.searchParams.get("count"), "10");
        assert.equal(url.searchParams.get("startIndex"), String(pages * 10));
      }
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, created);

    const first = await jive(await fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token)));
    assert.equal(first.list.length, 25);
    assert.equal(first.startIndex, 0);
    assert.equal(first.itemsPerPage, 25);
    assert.equal(new URL(first.links.next).searchParams.get("startIndex"), "25");
    const last = await jive(await fetch(first.links.next, bearer(tokens.access_token)));
    assert.equal(last.list.length, 5);
    assert.equal(last.links.next, undefined);
    assert.equal(last.links.previous, `${env.base}/api/core/v3/webhooks?startIndex=0&count=25`);
    assert.equal(first.links.previous, undefined);
    const capped = await jive(await fetch(`${env.base}/api/core/v3/webhooks?count=500`, bearer(tokens.access_token)));
    assert.equal(capped.itemsPerPage, 100);
    assert.equal(capped.list.length, 30);

    for (const query of ["count=0", "count=abc", "startIndex=-1"]) {
      const bad = await fetch(`${env.base}/api/core/v3/webhooks?${query}`, bearer(tokens.access_token));
      assert.equal(bad.status, 400, query);
      assert.match((await jive(bad)).error.message, /must be an integer/);
    }
  });
});

Deno.test("DELETE /api/core/v3/webhooks/{id} answers 204, then the hook is gone", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const entity = await jive(
      await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:1/cb")),
    );
    const del = () => fetch(entity.resources.self.ref, { method: "DELETE", ...bearer(tokens.access_token) });
    const deleted = await del();
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), "");
    const again = await del();
    assert.equal(again.status, 404);
    assert.equal((await jive(again)).error.status, 404);
    const got = await fetch(entity.resources.self.ref, bearer(tokens.access_token));
    assert.equal(got.status, 404);
    assert.deepEqual(await jive(got), {
      error: { status: 404, message: `No webhook with id "${entity.id}"` },
    });
    const list = await jive(await fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token)));
    assert.deepEqual(list.list, []);
    const unknown = await fetch(`${env.base}/api/core/v3/nothing`, bearer(tokens.access_token));
    assert.equal(unknown.status, 404);
    assert.equal((await jive(unknown)).error.status, 404);
  });
});

Deno.test("PUT /api/core/v3/webhooks/{id} updates a hook after validating it", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const entity = await jive(
      await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:1/cb")),
    );
    const put = (body: unknown) =>
      fetch(entity.resources.self.ref, {
        method: "PUT",
        headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const updated = await jive(
      await put({ events: ["idea"], object: entity.object, callback: "http://127.0.0.1:2/new", enabled: false }),
    );
    assert.deepEqual(updated.events, ["idea"]);
    assert.equal(updated.callback, "http://127.0.0.1:2/new");
    assert.equal(updated.enabled, false);
    assert.equal(updated.id, entity.id);
    const bad = await put({ events: ["idea"], callback: "http://127.0.0.1:2/new" });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const got = await jive(await fetch(entity.resources.self.ref, bearer(tokens.access_token)));
    assert.deepEqual(got, updated);
    const notBoolean = await put({
      events: ["idea"],
      object: entity.object,
      callback: "http://x.example/",
      enabled: "no",
    });
    assert.equal(notBoolean.status, 400);
    assert.match((await jive(notBoolean)).error.message, /'enabled' must be a boolean/);
    const missing = await fetch(`${env.base}/api/core/v3/webhooks/424242`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ events: ["user_account"], callback: "http://x.example/" }),
    });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });
});

Deno.test("GET /api/core/v3/places/1000 answers the sample place placeFor() names", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const place = await jive(await fetch(env.sandbox.placeFor(env.origin), bearer(tokens.access_token)));
    assert.equal(place.resources.self.ref, env.sandbox.placeFor(env.origin));
    assert.equal(place.type, "space");
  });
});

// ---------------------------------------------------------------------------
// Trigger and postbacks

Deno.test("POST /trigger delivers a JiveEXTN-signed activity postback that verifyJiveExtn accepts", async () => {
  await withReceiver(async (callback, received) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const entity = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const response = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({}),
      });
      assert.equal(response.status, 200);
      const summary = await response.json();
      assert.deepEqual(summary, {
        delivered: [{
          webhookId: entity.id,
          callback,
          event: "discussion",
          verb: "jive:created",
          status: 204,
          // The signature's timestamp names the postback for a redelivery.
          timestamp: env.clock.now,
        }],
      });
      assert.equal(received.length, 1);
      const { headers, body } = received[0];
      assert.equal(headers.get("content-type"), "application/json");
      assert.equal(headers.get("x-tenant-id"), SANDBOX_COMMUNITY.tenantId);
      const community = await env.sandbox.communityFor(env.origin);
      const verified = await verifyJiveExtn(
        headers.get("authorization"),
        community.clientSecret,
        { now: env.clock.now },
      );
      assert.deepEqual(verified, {
        ok: true,
        clientId: community.clientId,
        tenantId: community.tenantId,
        jiveUrl: community.baseUrl!,
        timestamp: env.clock.now,
      });
      const wrongKey = await verifyJiveExtn(
        headers.get("authorization"),
        btoa("not the community secret"),
        { now: env.clock.now },
      );
      assert.equal(wrongKey.ok, false);
      const payload = JSON.parse(body);
      assert.ok(Array.isArray(payload));
      assert.equal(payload.length, 1);
      assert.equal(payload[0].webhook, entity.resources.self.ref);
      const activity = payload[0].activity;
      assert.equal(activity.verb, "jive:created");
      assert.equal(activity.actor.displayName, "Sandbox User");
      assert.equal(activity.object.objectType, "jive:discussion");
      assert.equal(activity.target.id, entity.object);
      assert.equal(activity.provider.url, env.base);
      assert.equal(activity.published, new Date(env.clock.now).toISOString());
      for (const field of ["content", "title", "url"]) {
        assert.equal(typeof activity[field], "string", field);
      }
      assert.ok(!JSON.stringify(summary).includes(community.clientSecret));
      assert.ok(!body.includes(community.clientSecret));
    });
  });
});

Deno.test("POST /trigger picks hooks by webhookId and event, and uses the verb asked for", async () => {
  await withReceiver(async (callback, received) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const content = await jive(await register(env, tokens.access_token, contentHook(env, `${callback}?h=content`)));
      const system = await jive(
        await register(env, tokens.access_token, {
          events: ["social_group", "user_account"],
          callback: `${callback}?h=system`,
        }),
      );
      const trigger = async (body: unknown) => {
        const response = await fetch(`${env.base}/trigger`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      };
      const all = await trigger({});
      assert.deepEqual(
        all.body.delivered.map((d: { webhookId: string; verb: string }) => [d.webhookId, d.verb]).sort(),
        [[content.id, "jive:created"], [system.id, "jive:social_group_created"]].sort(),
      );
      const byId = await trigger({ webhookId: system.id, event: "user_account" });
      assert.deepEqual(byId.body.delivered.map((d: { webhookId: string }) => d.webhookId), [system.id]);
      assert.equal(byId.body.delivered[0].verb, "jive:user_account_created");
      const last = JSON.parse(received.at(-1)!.body)[0];
      assert.equal(last.webhook, system.resources.self.ref);
      assert.equal(last.activity.object.objectType, "jive:person");

      const byEvent = await trigger({ event: "document", verb: "jive:modified" });
      assert.equal(byEvent.body.delivered.length, 1);
      assert.equal(byEvent.body.delivered[0].webhookId, content.id);
      assert.equal(JSON.parse(received.at(-1)!.body)[0].activity.verb, "jive:modified");
      const none = await trigger({ event: "task" });
      assert.deepEqual(none.body, { delivered: [] });

      assert.equal((await trigger({ webhookId: "999999" })).status, 404);
      assert.equal((await trigger({ event: "blogpost" })).status, 400);
      assert.equal((await trigger({ verb: "created" })).status, 400);
      assert.equal((await trigger({ webhookId: 7 })).status, 400);
      const notJson = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{nope",
      });
      assert.equal(notJson.status, 400);
      assert.deepEqual(await notJson.json(), { error: "The body must be a JSON object" });
      assert.equal(received.length, 2 + 1 + 1);
      await assert.rejects(() => env.sandbox.trigger({ webhookId: "999999" }), RangeError);
    });
  });
});

Deno.test("POST /trigger reports status 0 for an unreachable callback and the receiver's status otherwise", async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      // A port nobody listens on: bind one, note it, close it.
      const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
      const deadPort = (listener.addr as Deno.NetAddr).port;
      listener.close();
      const dead = await jive(
        await register(env, tokens.access_token, contentHook(env, `http://127.0.0.1:${deadPort}/x`)),
      );
      const failing = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const summary = await env.sandbox.trigger();
      const byId = new Map(summary.delivered.map((d) => [d.webhookId, d]));
      assert.equal(byId.get(dead.id)!.status, 0);
      assert.equal(byId.get(dead.id)!.error, "The callback could not be reached");
      assert.equal(byId.get(failing.id)!.status, 500);
    });
  }, 500);
});

Deno.test("an HTML form POST /trigger redirects back to the Referer with ?triggered=N", async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      await jive(await register(env, tokens.access_token, contentHook(env, `${callback}/2`)));
      const post = (headers: Record<string, string>, form: Record<string, string> = {}) =>
        fetch(`${env.base}/trigger`, {
          method: "POST",
          headers: { Origin: env.origin, ...headers },
          body: new URLSearchParams(form),
          redirect: "manual",
        });
      const fromConsole = await post({ Referer: `${env.origin}/hooks?triggered=9&tab=2` });
      assert.equal(fromConsole.status, 303);
      const location = new URL(fromConsole.headers.get("location")!);
      assert.equal(location.origin + location.pathname, `${env.origin}/hooks`);
      assert.equal(location.searchParams.get("triggered"), "2");
      assert.equal(location.searchParams.get("tab"), "2");
      await fromConsole.body?.cancel();

      const foreign = await post({ Referer: "http://evil.example/page" }, { event: "discussion" });
      assert.equal(foreign.headers.get("location"), `${env.base}/?triggered=2`);
      await foreign.body?.cancel();

      const page = await fetch(foreign.headers.get("location")!);
      assert.match(await page.text(), /Event triggered: 2 postback\(s\) sent/);

      const crossSite = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { Origin: "http://evil.example" },
        body: new URLSearchParams({}),
        redirect: "manual",
      });
      assert.equal(crossSite.status, 403);
      await crossSite.body?.cancel();
    });
  });
});

Deno.test("a disabled hook receives no postback", async () => {
  await withReceiver(async (callback, received) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const entity = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const disabled = await fetch(entity.resources.self.ref, {
        method: "PUT",
        headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ ...contentHook(env, callback), enabled: false }),
      });
      assert.equal(disabled.status, 200);
      await disabled.body?.cancel();
      assert.deepEqual(await env.sandbox.trigger(), { delivered: [] });
      assert.deepEqual(await env.sandbox.trigger({ webhookId: entity.id }), { delivered: [] });
      assert.equal(received.length, 0);
    });
  });
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
