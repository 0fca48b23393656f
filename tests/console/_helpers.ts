/**
 * Test helpers for the console: a console served on 127.0.0.1 port 0 over
 * a fresh KV, sign-in through the sandbox, and hooks registered through the
 * console's form; with the cookie-keeping HTTP client and happy-dom parsing
 * of `_client.ts`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type ConsoleApp, type ConsoleOptions, createApp } from "../../console/app.ts";
import { Client, csrfOf, parse } from "./_client.ts";

export { Client, collectPages, csrfOf, parse } from "./_client.ts";

/** A console served for a test. */
export interface TestConsole {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The app. */
  app: ConsoleApp;
  /** Its KV. */
  kv: Deno.Kv;
  /** Stops the server and closes the KV. */
  close(): Promise<void>;
}

/** Every rate limit off. */
export const NO_RATE_LIMITS = {
  signin: null,
  forms: null,
  receiver: null,
  sandbox: null,
  consents: null,
  rejections: null,
  drafts: null,
};

/** Serves a console on port 0 over a `:memory:` KV (or `kvPath`). */
export async function startConsole(
  options: Partial<ConsoleOptions> & { kvPath?: string } = {},
): Promise<TestConsole> {
  const kv = await Deno.openKv(options.kvPath ?? ":memory:");
  let handler: (r: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    (r, info) => handler(r, info),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  let app: ConsoleApp | undefined;
  try {
    // Fake platforms listen on 127.0.0.1: tests allow the private network unless they test the refusal.
    // Rate limits are off unless a test sets them (tests/console/rate_limit_test.ts).
    app = createApp({
      buildAssets: false,
      allowPrivateNetwork: true,
      rateLimits: NO_RATE_LIMITS,
      ...options,
      kv,
      publicUrl: origin,
    });
    await app.ready;
  } catch (err) {
    await server.shutdown();
    await app?.close();
    kv.close();
    throw err;
  }
  handler = app.fetch;
  return {
    origin,
    app,
    kv,
    async close() {
      await app.close();
      await server.shutdown();
      kv.close();
    },
  };
}

/** Approves the sandbox consent page that `res` redirects to; returns the redirect back. */
export async function approveConsent(
  client: Client,
  res: Response,
): Promise<Response> {
  assert.equal(res.status, 302);
  const consentUrl = res.headers.get("location")!;
  await res.body?.cancel();
  const consent = await client.fetch(consentUrl);
  const html = await consent.text();
  assert.equal(consent.status, 200, html.slice(0, 300));
  const page = parse(html);
  const fields: Record<string, string> = {};
  let action = "";
  try {
    const form = page.document.querySelector("form#consent") as
      | HTMLFormElement
      | null;
    assert.ok(form, "the consent page has a form");
    action = form.getAttribute("action") ?? "";
    for (const input of form.querySelectorAll("input[type=hidden]")) {
      const el = input as HTMLInputElement;
      fields[el.name] = el.value;
    }
  } finally {
    page.close();
  }
  fields.decision = "approve";
  return await client.post(action, fields);
}

/**
 * Signs in through the sandbox; resolves with the signed-in client. Pass a
 * `client` to sign it in again, and `sessionCookie` for the name expected.
 */
export async function signIn(
  origin: string,
  client: Client = new Client(origin),
  sessionCookie = "cw_session",
): Promise<Client> {
  const login = await client.fetch("/auth/login?returnTo=/");
  const back = await approveConsent(client, login);
  assert.ok([302, 303].includes(back.status), `consent answered ${back.status}`);
  const callback = back.headers.get("location")!;
  await back.body?.cancel();
  assert.ok(callback.startsWith(`${origin}/auth/callback?`), callback);
  const done = await client.fetch(callback);
  await done.body?.cancel();
  assert.equal(done.status, 302);
  assert.equal(done.headers.get("location"), "/");
  assert.ok(client.cookies.has(sessionCookie), "a session cookie is set");
  return client;
}

/** Signs in (see {@linkcode signIn}) and reads the CSRF token of the form page at `path`. */
export async function signInAtForm(origin: string, path: string): Promise<{ client: Client; csrf: string }> {
  const client = await signIn(origin);
  return { client, csrf: csrfOf(await client.text(path, 200)) };
}

/** Connects the sandbox community (stores its tokens) through its OAuth. */
export async function connectSandbox(client: Client, origin: string): Promise<void> {
  const start = await client.fetch("/communities/sandbox-tenant/connect");
  const back = await approveConsent(client, start);
  const callback = back.headers.get("location")!;
  await back.body?.cancel();
  assert.ok(
    callback.startsWith(`${origin}/auth/community/callback?`),
    callback,
  );
  const done = await client.fetch(callback);
  await done.body?.cancel();
  assert.equal(done.status, 303);
  assert.equal(
    done.headers.get("location"),
    "/communities/sandbox-tenant?notice=connected",
  );
}

/** The sandbox's sample place, the `object` of content hooks. */
export function placeOf(origin: string): string {
  return `${origin}/sandbox/api/core/v3/places/1000`;
}

/** The hidden fields of the form `#formId` on the page at `path` (its CSRF token and one-time token), as shown now. */
async function onceFields(client: Client, path: string, formId: string): Promise<{ _csrf: string; formToken: string }> {
  const page = parse(await client.text(path, 200));
  try {
    const field = (name: string) =>
      (page.document.querySelector(`#${formId} input[name=${name}]`) as HTMLInputElement | null)?.value ?? "";
    return { _csrf: field("_csrf"), formToken: field("formToken") };
  } finally {
    page.close();
  }
}

/** The register form's hidden fields: its CSRF token and the one-time token issued to this session. */
export function registerFormFields(client: Client): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, "/webhooks/new", "register");
}

/** The hidden fields of a hook's "Send test event" button (its CSRF token and one-time token), as its page shows them now. */
export function testEventFields(client: Client, hookId: string): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, `/webhooks/${encodeURIComponent(hookId)}`, "send-test");
}

/** The hidden fields of a delivery's "Replay to receiver" button, as its page shows them now. */
export function replayFields(client: Client, deliveryId: string): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, `/deliveries/${encodeURIComponent(deliveryId)}`, "replay");
}

/** The hidden fields of a delivery's Redeliver button, as its page shows them now. */
export function redeliverFields(client: Client, deliveryId: string): Promise<{ _csrf: string; formToken: string }> {
  return onceFields(client, `/deliveries/${encodeURIComponent(deliveryId)}`, "redeliver");
}

/**
 * Registers a hook through the console's form (sandbox community, default
 * callback); resolves with the new record's id.
 */
export async function registerHook(
  client: Client,
  origin: string,
  fields: Record<string, string | string[]> = {},
): Promise<string> {
  const res = await client.post("/webhooks", {
    ...await registerFormFields(client),
    tenantId: "sandbox-tenant",
    events: ["document"],
    object: placeOf(origin),
    callback: "",
    ...fields,
  });
  const body = await res.text();
  assert.equal(res.status, 303, body.slice(0, 2000));
  const location = res.headers.get("location")!;
  const match = /^\/webhooks\/([^/?]+)\?notice=registered$/.exec(location);
  assert.ok(match, location);
  return decodeURIComponent(match[1]);
}

/** The sandbox hook {@linkcode withHook} registers. */
export interface TestHook {
  /** The console's record id. */
  id: string;
  /** The hook's callback (this console's receiver). */
  callback: string;
  /** The hook's URL on the platform (`resources.self.ref`). */
  ref: string;
  /** The platform's id of the hook. */
  platformId: string;
}

/**
 * Runs `fn` with a console whose sandbox community is connected and has one
 * hook registered through the console's form (default callback), and the
 * signed-in client; closes the console afterwards. `options` go to
 * {@linkcode startConsole}.
 */
export async function withHook(
  fn: (t: TestConsole, hook: TestHook, client: Client) => Promise<void>,
  options: Partial<ConsoleOptions> = {},
): Promise<void> {
  const t = await startConsole(options);
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const id = await registerHook(client, t.origin);
    const record = (await t.app.webhooks.findByID(id))!;
    await fn(t, {
      id,
      callback: String(record.entity.callback),
      ref: record.entity.resources!.self!.ref!,
      platformId: String(record.entity.id),
    }, client);
  } finally {
    await t.close();
  }
}

/** Asks the sandbox to send postbacks; resolves with their HTTP statuses. */
export async function trigger(
  origin: string,
  options: { webhookId?: string; event?: string } = {},
): Promise<number[]> {
  const res = await fetch(`${origin}/sandbox/trigger`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(options),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return (body.delivered as { status: number }[]).map((d) => d.status);
}
