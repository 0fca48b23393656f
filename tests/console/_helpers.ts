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
import { registerFormFields } from "./_form_fields.ts";
import { closeWithin } from "./_close_within.ts";

export { Client, collectPages, csrfOf, pageError, parse } from "./_client.ts";
export { redeliverFields, registerFormFields, replayFields, testEventFields } from "./_form_fields.ts";

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

/** Serves a console on port 0 over a `:memory:` KV (or `kvPath`, or `kv`: closed with the console). */
export async function startConsole(
  options: Partial<ConsoleOptions> & { kvPath?: string } = {},
): Promise<TestConsole> {
  const kv = options.kv ?? await Deno.openKv(options.kvPath ?? ":memory:");
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

/**
 * Posts the register form with a fresh one-time token: the sandbox community, content events of its sample place,
 * the default callback, as `fields` override them; resolves with the console's answer, whatever it is.
 */
export async function postRegisterForm(
  client: Client,
  origin: string,
  fields: Record<string, string | string[]> = {},
): Promise<Response> {
  return await client.post("/webhooks", {
    ...await registerFormFields(client),
    tenantId: "sandbox-tenant",
    events: ["document"],
    object: placeOf(origin),
    callback: "",
    ...fields,
  });
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
  const res = await postRegisterForm(client, origin, fields);
  const body = await res.text();
  assert.equal(res.status, 303, body.slice(0, 2000));
  const location = res.headers.get("location")!;
  const match = /^\/webhooks\/([^/?]+)\?notice=registered$/.exec(location);
  assert.ok(match, location);
  return decodeURIComponent(match[1]);
}

/** How {@linkcode withSignedIn} sets up: `connect: false` leaves the (pre-connected) sandbox unconnected by OAuth. */
export type SignedInOptions = Partial<ConsoleOptions> & { connect?: boolean };

/** A console and its signed-in client, as {@linkcode withSignedIn} hands them to a test. */
export interface SignedIn {
  /** The console. */
  t: TestConsole;
  /** The client signed in through the sandbox. */
  client: Client;
}

/**
 * Runs `fn` with a console (`options` go to {@linkcode startConsole}), a client signed in through the sandbox, and
 * the sandbox community connected through its OAuth unless `connect` is false; closes the console afterwards.
 */
export async function withSignedIn(options: SignedInOptions, fn: (at: SignedIn) => Promise<void>): Promise<void> {
  const { connect = true, ...consoleOptions } = options;
  const t = await startConsole(consoleOptions);
  const client = new Client(t.origin);
  let failed = false;
  try {
    await signIn(t.origin, client);
    if (connect) await connectSandbox(client, t.origin);
    await fn({ t, client });
  } catch (error) {
    failed = true;
    client.abort(); // a request the test left under way would hold the console's shutdown
    throw error;
  } finally {
    await closeWithin(t, failed);
  }
}

/** What {@linkcode withSignedInHook} hands a test: {@linkcode SignedIn} and the hook it registered. */
export interface SignedInHook extends SignedIn {
  /** The console's record id of the hook. */
  hookId: string;
  /** Reads the platform's id of the hook from its record. */
  platformId(): Promise<string>;
}

/**
 * {@linkcode withSignedIn}, with one hook registered through the console's form ({@linkcode registerHook}; `hook`
 * overrides its fields) before `fn` runs.
 */
export function withSignedInHook(
  options: SignedInOptions & { hook?: Record<string, string | string[]> },
  fn: (at: SignedInHook) => Promise<void>,
): Promise<void> {
  const { hook, ...rest } = options;
  return withSignedIn(rest, async ({ t, client }) => {
    const hookId = await registerHook(client, t.origin, hook);
    await fn({ t, client, hookId, platformId: async () => String((await t.app.webhooks.findByID(hookId))!.entity.id) });
  });
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

/** {@linkcode withSignedInHook}, handing `fn` the console, the hook's record read back, and the client. */
export function withHook(
  fn: (t: TestConsole, hook: TestHook, client: Client) => Promise<void>,
  options: Partial<ConsoleOptions> = {},
): Promise<void> {
  return withSignedInHook(options, async ({ t, client, hookId: id }) => {
    const record = (await t.app.webhooks.findByID(id))!;
    const { callback, resources, id: platformId } = record.entity;
    await fn(t, { id, callback: String(callback), ref: resources!.self!.ref!, platformId: String(platformId) }, client);
  });
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
