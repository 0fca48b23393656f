// What the sandbox's functional tests share: the sandbox mounted under
// /sandbox in a tiny Hono app on 127.0.0.1 over a real in-memory KV, a
// postback receiver, the console's and the community's OAuth parties, the
// consent flow and sign-in, and short-hands for the REST API's requests.

import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { Hono } from "hono";
import * as oauth from "oauth4webapi";
import { ANTI_HIJACKING_PREFIX, createSandbox, type Sandbox, type SandboxOptions } from "../../sandbox/mod.ts";

export interface Env {
  kv: Deno.Kv;
  sandbox: Sandbox;
  origin: string;
  base: string;
  clock: { now: number };
}

export async function withSandbox(
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

export interface Received {
  headers: Headers;
  body: string;
}

/** A postback receiver on 127.0.0.1 that answers `status`. */
export async function withReceiver(
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
export async function jive(response: Response): Promise<any> {
  const text = await response.text();
  assert.ok(
    text.startsWith(ANTI_HIJACKING_PREFIX),
    `no anti-hijacking line in ${text.slice(0, 80)}`,
  );
  return JSON.parse(text.slice(ANTI_HIJACKING_PREFIX.length));
}

export const insecure = { [oauth.allowInsecureRequests]: true };

export interface Party {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  clientSecret: string;
  redirectUri: string;
}

export async function party(
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
export function refreshGrant(p: Party, refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(p.as, p.client, p.auth, refreshToken, insecure);
}

/** Opens the consent page and reads its form with happy-dom. */
export async function consentForm(
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
export async function authorize(
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
export async function signIn(
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

export function register(
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

export function bearer(token: string): RequestInit {
  return { headers: { Authorization: `Bearer ${token}` } };
}

export function tokenRequest(
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

export function contentHook(env: Env, callback: string): Record<string, unknown> {
  return {
    events: ["discussion", "document"],
    object: env.sandbox.placeFor(env.origin),
    callback,
  };
}
