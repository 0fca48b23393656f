/**
 * The sandbox community: an emulator of the community platform (Jive REST
 * API v3 webhooks, its OAuth 2.0 server and its signed postbacks) that the
 * console serves under `/sandbox`.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { isKnownEvent, validateHookFields } from "./_events.ts";
import { ROOT } from "./_keys.ts";
import { type ConsentFields, consentPage, errorPage, indexPage } from "./_pages.ts";
import { type ClientRecord, CODE_TTL_MS, type HookRecord, s256, SandboxStore, timingSafeEqual } from "./_store.ts";
import { buildPostback, defaultVerb, deliver, type Delivery, SANDBOX_USER_NAME, SANDBOX_USER_SUB } from "./_trigger.ts";

export type { Delivery } from "./_trigger.ts";

/** The sandbox community's fixed name and tenant id. */
export const SANDBOX_COMMUNITY: {
  readonly name: "Sandbox";
  readonly tenantId: "sandbox-tenant";
} = Object.freeze({ name: "Sandbox", tenantId: "sandbox-tenant" } as const);

/** The one user of the sandbox, as userinfo reports it. */
export const SANDBOX_USER: {
  readonly sub: "sandbox-user";
  readonly name: "Sandbox User";
} = Object.freeze({ sub: SANDBOX_USER_SUB, name: SANDBOX_USER_NAME } as const);

/** The line the platform puts before every JSON body of its REST API. */
export const ANTI_HIJACKING_PREFIX = "throw 'allowIllegalResourceCall is false.';\n";

/** Default mount point. */
export const DEFAULT_BASE_PATH = "/sandbox";
/** Default access token lifetime, in seconds. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** Default `count` of a webhook list page. */
export const DEFAULT_PAGE_COUNT = 25;
/** Largest `count` of a list page; larger values are capped, like the platform. */
export const MAX_PAGE_COUNT = 100;
/** Largest request body the sandbox reads. */
const MAX_BODY_BYTES = 64 * 1024;
/** Id of the sample place whose URI content hooks can use as `object`. */
const PLACE_ID = "1000";

/** Options of {@linkcode createSandbox}. */
export interface SandboxOptions {
  /** Where all sandbox state lives, under keys starting with `"sandbox"`. */
  kv: Deno.Kv;
  /** Where the console mounts the app; default `"/sandbox"`. */
  basePath?: string;
  /** Access token lifetime in seconds; default 3600. */
  tokenTtlSeconds?: number;
  /** The fetch used for postbacks; default the global `fetch`. */
  fetch?: typeof fetch;
  /** The clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
}

/** The community record to save through Module A's `communities.save`. */
export interface SandboxCommunityRecord {
  /** `"Sandbox"`. */
  name: string;
  /** `"sandbox-tenant"`. */
  tenantId: string;
  /** `{origin}{basePath}`, the community's address. */
  baseUrl: string;
  /** The community's OAuth client id. */
  clientId: string;
  /** The community's client secret: base64 ending in `.s`, as the platform's. */
  clientSecret: string;
}

/**
 * The console's own sign-in client at the sandbox. The first six fields
 * have the shape of the console's `OAuthProvider`.
 */
export interface SandboxOAuthClient {
  /** `{origin}{basePath}/oauth2/authorize`. */
  authorizationEndpoint: string;
  /** `{origin}{basePath}/oauth2/token`. */
  tokenEndpoint: string;
  /** `{origin}{basePath}/oauth2/userinfo`. */
  userinfoEndpoint: string;
  /** `"sandbox-console"`. */
  clientId: string;
  /** Generated once, kept in KV. */
  clientSecret: string;
  /** The scope granted when none is asked for: `"sandbox"`. */
  scope: string;
  /** `{origin}{basePath}`; no `iss` parameter is sent back. */
  issuer: string;
  /**
   * Which redirect URIs the sandbox accepts for this client: any http(s)
   * URL of this origin (scheme, host and port equal), without a fragment.
   */
  redirectUris: { sameOriginAs: string };
  /** The same endpoints as oauth4webapi's `AuthorizationServer`. */
  authorizationServer: SandboxAuthorizationServer;
}

/**
 * Authorization server metadata, assignable to oauth4webapi's
 * `AuthorizationServer`.
 */
export type SandboxAuthorizationServer = {
  /** `{origin}{basePath}`. */
  issuer: string;
  /** The consent page. */
  authorization_endpoint: string;
  /** The token endpoint. */
  token_endpoint: string;
  /** The userinfo endpoint. */
  userinfo_endpoint: string;
  /** `["S256"]`. */
  code_challenge_methods_supported: string[];
};

/** What to trigger; every field optional. */
export interface TriggerOptions {
  /** Only this hook (by its platform id). */
  webhookId?: string;
  /** Only hooks subscribed to this event, which is what they receive. */
  event?: string;
  /** The activity's verb, such as `jive:modified`; default by event. */
  verb?: string;
}

/** The answer of `POST /trigger` and of {@linkcode Sandbox.trigger}. */
export interface TriggerSummary {
  /** One entry per postback sent. */
  delivered: Delivery[];
}

/** A sandbox community, made by {@linkcode createSandbox}. */
export interface Sandbox {
  /** The routes, relative: mount with `app.route("/sandbox", sandbox.app)`. */
  readonly app: Hono;
  /** The mount point given (default `"/sandbox"`). */
  readonly basePath: string;
  /**
   * The community record for Module A's `communities.save`.
   *
   * @param origin The console's origin, such as `http://localhost:8000`.
   */
  communityFor(origin: string): Promise<SandboxCommunityRecord>;
  /**
   * The console's sign-in client at the sandbox.
   *
   * @param origin The console's origin.
   */
  oauthClientFor(origin: string): Promise<SandboxOAuthClient>;
  /**
   * The sandbox's OAuth endpoints, for oauth4webapi.
   *
   * @param origin The console's origin.
   */
  authorizationServerFor(origin: string): SandboxAuthorizationServer;
  /**
   * The URI of the sandbox's sample place, for `object` of content hooks.
   *
   * @param origin The console's origin.
   */
  placeFor(origin: string): string;
  /** Makes every access token issued so far expired; resolves with how many. */
  expireTokens(): Promise<number>;
  /**
   * Sends postbacks to the registered hooks, like `POST /trigger`.
   *
   * @param options Which hook, event and verb.
   */
  trigger(options?: TriggerOptions): Promise<TriggerSummary>;
}

function checkOptions(options: SandboxOptions): {
  kv: Deno.Kv;
  basePath: string;
  ttlSeconds: number;
  fetchFn: typeof fetch;
  now: () => number;
} {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `Cannot create sandbox: 'options' must be an object, got ${String(options)}`,
    );
  }
  const { kv } = options;
  if (
    typeof kv !== "object" || kv === null || typeof kv.get !== "function" ||
    typeof kv.atomic !== "function"
  ) {
    throw new TypeError(
      `Cannot create sandbox: 'kv' must be a Deno.Kv, got ${String(kv)}`,
    );
  }
  const basePath = options.basePath ?? DEFAULT_BASE_PATH;
  if (
    typeof basePath !== "string" ||
    !/^(\/[A-Za-z0-9._~-]+)+$/.test(basePath)
  ) {
    throw new TypeError(
      `Cannot create sandbox: 'basePath' must be a path such as "/sandbox", without a trailing slash, got ${
        JSON.stringify(basePath)
      }`,
    );
  }
  const ttlSeconds = options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
    throw new RangeError(
      `Cannot create sandbox: 'tokenTtlSeconds' must be a positive integer, got ${ttlSeconds}`,
    );
  }
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== "function") {
    throw new TypeError(
      `Cannot create sandbox: 'fetch' must be a function, got ${String(fetchFn)}`,
    );
  }
  const now = options.now ?? Date.now;
  if (typeof now !== "function") {
    throw new TypeError(
      `Cannot create sandbox: 'now' must be a function, got ${String(now)}`,
    );
  }
  return { kv, basePath, ttlSeconds, fetchFn, now };
}

function originOf(origin: string, what: string): string {
  let url: URL | undefined;
  try {
    url = typeof origin === "string" ? new URL(origin) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new TypeError(
      `Cannot build ${what}: 'origin' must be an http(s) origin such as "http://localhost:8000", got ${
        JSON.stringify(origin)
      }`,
    );
  }
  return url.origin;
}

/** A JSON answer of the REST API: anti-hijacking line, then the JSON. */
function jiveJson(status: number, body: unknown): Response {
  return new Response(ANTI_HIJACKING_PREFIX + JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
    },
  });
}

/** The platform's error body, prefixed. */
function jiveError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const response = jiveJson(status, { error: { status, message } });
  for (const [name, value] of Object.entries(headers)) {
    response.headers.set(name, value);
  }
  return response;
}

/** An RFC 6749 error answer of the token endpoint. */
function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error, error_description: description }, {
    status,
    headers: { "Cache-Control": "no-store", ...headers },
  });
}

function entityOf(hook: HookRecord, origin?: string): Record<string, unknown> {
  const base = origin === undefined ? hook.baseUrl : origin;
  const self = `${base}/api/core/v3/webhooks/${hook.id}`;
  return {
    id: hook.id,
    type: "webhook",
    resources: { self: { ref: self, allowed: ["GET", "PUT", "DELETE"] } },
    ...(hook.object === undefined ? {} : { object: hook.object }),
    callback: hook.callback,
    events: hook.events,
    enabled: hook.enabled,
    buggy: false,
    published: hook.published,
    updated: hook.updated,
  };
}

function selfRefOf(hook: HookRecord): string {
  return `${hook.baseUrl}/api/core/v3/webhooks/${hook.id}`;
}

function parseBasic(header: string | undefined): [string, string] | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) return null;
  let decoded: string;
  try {
    decoded = new TextDecoder().decode(
      Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0)),
    );
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  return colon === -1 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** RFC 6749 2.3.1 form-decoding of Basic credentials; `null` if malformed. */
function formDecode(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return null;
  }
}

function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1] : null;
}

const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Creates the sandbox community: a Hono app emulating the platform's
 * webhook API, OAuth server and postbacks, with all state in `kv` under
 * keys starting with `"sandbox"`.
 *
 * @param options The KV store, mount point, token lifetime, fetch and clock.
 * @returns The sandbox, whose `app` the console mounts at `basePath`.
 * @throws {TypeError} When `kv` is not a Deno.Kv, `basePath` is not a path
 *   without a trailing slash, or `fetch` / `now` is not a function.
 * @throws {RangeError} When `tokenTtlSeconds` is not a positive integer.
 *
 * @example Mount it and read the community record
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hono } from "hono";
 * import { createSandbox, SANDBOX_COMMUNITY } from "./sandbox.ts";
 *
 * const kv = await Deno.openKv(":memory:");
 * try {
 *   const sandbox = createSandbox({ kv });
 *   const app = new Hono().route("/sandbox", sandbox.app);
 *   const page = await app.request("http://localhost:8000/sandbox");
 *   assert.equal(page.status, 200);
 *   const community = await sandbox.communityFor("http://localhost:8000");
 *   assert.equal(community.tenantId, SANDBOX_COMMUNITY.tenantId);
 *   assert.equal(community.baseUrl, "http://localhost:8000/sandbox");
 *   assert.ok(community.clientSecret.endsWith(".s"));
 * } finally {
 *   kv.close();
 * }
 * ```
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const { kv, basePath, ttlSeconds, fetchFn, now } = checkOptions(options);
  // Two postbacks of one tenant signed in the same millisecond would carry the
  // same header, and a replay-safe receiver delivers a header once: each
  // signature of this sandbox gets a timestamp of its own.
  let lastSigned = -Infinity;
  const signingNow = (): number => (lastSigned = Math.max(now(), lastSigned + 1));
  const store = new SandboxStore(kv);
  const tenantId = SANDBOX_COMMUNITY.tenantId;
  const app = new Hono();

  const baseOf = (c: Context): string => new URL(c.req.url).origin + basePath;

  const authorizationServerFor = (origin: string): SandboxAuthorizationServer => {
    const base = originOf(origin, "the authorization server") + basePath;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth2/authorize`,
      token_endpoint: `${base}/oauth2/token`,
      userinfo_endpoint: `${base}/oauth2/userinfo`,
      code_challenge_methods_supported: ["S256"],
    };
  };

  const placeFor = (origin: string): string =>
    `${originOf(origin, "the place URI") + basePath}/api/core/v3/places/${PLACE_ID}`;

  // ---- OAuth 2.0 -------------------------------------------------------

  /** Validates an authorization request; the client, or what is wrong. */
  const checkAuthorization = async (
    fields: Partial<ConsentFields>,
    requestOrigin: string,
  ): Promise<ClientRecord | string> => {
    if (!fields.client_id) return "client_id is missing";
    const client = await store.clientById(fields.client_id);
    if (!client) {
      return `client_id ${JSON.stringify(fields.client_id)} is not a client of the sandbox`;
    }
    if (!fields.redirect_uri) return "redirect_uri is missing";
    let redirect: URL;
    try {
      redirect = new URL(fields.redirect_uri);
    } catch {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} is not an absolute URL`;
    }
    if (redirect.protocol !== "http:" && redirect.protocol !== "https:") {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} must be an http(s) URL`;
    }
    if (redirect.hash !== "" || fields.redirect_uri.includes("#")) {
      return `redirect_uri ${JSON.stringify(fields.redirect_uri)} must not have a fragment`;
    }
    if (client.kind === "console" && redirect.origin !== requestOrigin) {
      return `redirect_uri ${
        JSON.stringify(fields.redirect_uri)
      } must be under ${requestOrigin} for the console's client`;
    }
    if (fields.response_type !== "code") {
      return `response_type must be "code", got ${JSON.stringify(fields.response_type ?? null)}`;
    }
    if (!fields.code_challenge) {
      return "code_challenge is missing: PKCE with S256 is required";
    }
    if (fields.code_challenge_method !== "S256") {
      return `code_challenge_method must be "S256", got ${JSON.stringify(fields.code_challenge_method ?? null)}`;
    }
    if (!CODE_CHALLENGE.test(fields.code_challenge)) {
      return "code_challenge must be 43 to 128 characters of base64url";
    }
    return client;
  };

  const clientName = (client: ClientRecord): string =>
    client.kind === "console" ? "The console (sign-in)" : "The console, on behalf of the Sandbox community's app";

  app.get("/oauth2/authorize", async (c) => {
    const q = c.req.query();
    const fields: ConsentFields = {
      client_id: q.client_id ?? "",
      redirect_uri: q.redirect_uri ?? "",
      response_type: q.response_type ?? "",
      code_challenge: q.code_challenge ?? "",
      code_challenge_method: q.code_challenge_method ?? "",
      state: q.state,
      scope: q.scope,
    };
    const checked = await checkAuthorization(fields, new URL(c.req.url).origin);
    if (typeof checked === "string") {
      return c.html(errorPage(checked), 400);
    }
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    return c.html(
      consentPage(
        `${basePath}/oauth2/authorize`,
        clientName(checked),
        fields,
        SANDBOX_USER_NAME,
      ),
    );
  });

  app.post(
    "/oauth2/authorize",
    bodyLimit({ maxSize: MAX_BODY_BYTES }),
    csrf(),
    async (c) => {
      const form = await c.req.parseBody();
      const text = (name: string): string | undefined =>
        typeof form[name] === "string" ? form[name] as string : undefined;
      const fields: Partial<ConsentFields> = {
        client_id: text("client_id"),
        redirect_uri: text("redirect_uri"),
        response_type: text("response_type"),
        code_challenge: text("code_challenge"),
        code_challenge_method: text("code_challenge_method"),
        state: text("state"),
        scope: text("scope"),
      };
      const checked = await checkAuthorization(
        fields,
        new URL(c.req.url).origin,
      );
      if (typeof checked === "string") {
        return c.html(errorPage(checked), 400);
      }
      const redirect = new URL(fields.redirect_uri!);
      const decision = text("decision");
      if (decision === "approve") {
        const code = await store.createCode({
          clientId: checked.clientId,
          redirectUri: fields.redirect_uri!,
          codeChallenge: fields.code_challenge!,
          scope: fields.scope || "sandbox",
          sub: SANDBOX_USER_SUB,
          tenantId,
          expiresAt: now() + CODE_TTL_MS,
        });
        redirect.searchParams.set("code", code);
      } else if (decision === "deny") {
        redirect.searchParams.set("error", "access_denied");
        redirect.searchParams.set(
          "error_description",
          "The sandbox user denied the request",
        );
      } else {
        return c.html(errorPage('decision must be "approve" or "deny"'), 400);
      }
      if (fields.state !== undefined) {
        redirect.searchParams.set("state", fields.state);
      }
      return c.redirect(redirect.href, 303);
    },
  );

  /** The client authenticated by Basic or client_secret_post, or an error. */
  const authenticateClient = async (
    authorization: string | undefined,
    form: Record<string, string>,
  ): Promise<ClientRecord | Response> => {
    const challenge = { "WWW-Authenticate": 'Basic realm="sandbox"' };
    let clientId: string | undefined;
    let candidates: string[];
    if (authorization) {
      const basic = parseBasic(authorization);
      if (!basic) {
        return oauthError(
          401,
          "invalid_client",
          "The Authorization header is not valid Basic credentials",
          challenge,
        );
      }
      // Module A sends the raw pair; RFC 6749 clients form-encode it.
      clientId = basic[0];
      const decodedId = formDecode(basic[0]);
      if (decodedId !== null && decodedId !== clientId) {
        if (await store.clientById(decodedId)) clientId = decodedId;
      }
      candidates = [basic[1], formDecode(basic[1]) ?? basic[1]];
      if (form.client_id !== undefined && form.client_id !== clientId) {
        return oauthError(
          400,
          "invalid_request",
          "client_id in the form differs from the one in the Authorization header",
        );
      }
    } else {
      clientId = form.client_id;
      candidates = form.client_secret === undefined ? [] : [form.client_secret];
    }
    if (!clientId || candidates.length === 0) {
      return oauthError(
        401,
        "invalid_client",
        "Client authentication is required (Basic or client_secret_post)",
        challenge,
      );
    }
    const client = await store.clientById(clientId);
    let ok = false;
    for (const candidate of candidates) {
      if (await timingSafeEqual(candidate, client?.clientSecret ?? "\0")) {
        ok = true;
      }
    }
    if (!client || !ok) {
      return oauthError(
        401,
        "invalid_client",
        "Unknown client or wrong client secret",
        challenge,
      );
    }
    return client;
  };

  const tokenAnswer = (
    tokens: { accessToken: string; refreshToken: string },
    scope: string,
  ): Response =>
    Response.json({
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      token_type: "bearer",
      expires_in: ttlSeconds,
      scope,
    }, { headers: { "Cache-Control": "no-store", "Pragma": "no-cache" } });

  app.post(
    "/oauth2/token",
    bodyLimit({ maxSize: MAX_BODY_BYTES }),
    async (c) => {
      const type = c.req.header("Content-Type") ?? "";
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
        return oauthError(
          400,
          "invalid_request",
          "The body must be application/x-www-form-urlencoded",
        );
      }
      const form: Record<string, string> = Object.fromEntries(
        new URLSearchParams(await c.req.text()),
      );
      const client = await authenticateClient(
        c.req.header("Authorization"),
        form,
      );
      if (client instanceof Response) return client;
      const grantType = form.grant_type;
      if (grantType === "authorization_code") {
        if (!form.code) {
          return oauthError(400, "invalid_request", "code is missing");
        }
        const code = await store.consumeCode(form.code);
        if (!code || code.expiresAt < now()) {
          return oauthError(
            400,
            "invalid_grant",
            "The authorization code is unknown, expired or already used",
          );
        }
        if (code.clientId !== client.clientId) {
          return oauthError(
            400,
            "invalid_grant",
            "The authorization code was issued to another client",
          );
        }
        if (form.redirect_uri !== code.redirectUri) {
          return oauthError(
            400,
            "invalid_grant",
            "redirect_uri differs from the one of the authorization request",
          );
        }
        if (!form.code_verifier || !CODE_VERIFIER.test(form.code_verifier)) {
          return oauthError(
            400,
            "invalid_grant",
            "code_verifier is missing or malformed",
          );
        }
        if (await s256(form.code_verifier) !== code.codeChallenge) {
          return oauthError(
            400,
            "invalid_grant",
            "code_verifier does not match the code_challenge",
          );
        }
        const grant = {
          clientId: client.clientId,
          sub: code.sub,
          scope: code.scope,
          tenantId: code.tenantId,
        };
        const tokens = await store.issueTokens(
          grant,
          now() + ttlSeconds * 1000,
          ttlSeconds * 1000,
        );
        if (!tokens) {
          return oauthError(500, "server_error", "Tokens could not be stored");
        }
        return tokenAnswer(tokens, grant.scope);
      }
      if (grantType === "refresh_token") {
        if (!form.refresh_token) {
          return oauthError(400, "invalid_request", "refresh_token is missing");
        }
        const entry = await store.refreshEntry(form.refresh_token);
        if (!entry.value) {
          return oauthError(
            400,
            "invalid_grant",
            "The refresh token is unknown or was already used",
          );
        }
        if (entry.value.clientId !== client.clientId) {
          return oauthError(
            400,
            "invalid_grant",
            "The refresh token was issued to another client",
          );
        }
        const tokens = await store.issueTokens(
          entry.value,
          now() + ttlSeconds * 1000,
          ttlSeconds * 1000,
          entry,
        );
        if (!tokens) {
          return oauthError(
            400,
            "invalid_grant",
            "The refresh token is unknown or was already used",
          );
        }
        return tokenAnswer(tokens, entry.value.scope);
      }
      return oauthError(
        400,
        grantType ? "unsupported_grant_type" : "invalid_request",
        grantType ? `grant_type ${JSON.stringify(grantType)} is not supported` : "grant_type is missing",
      );
    },
  );

  /** The grant of the request's bearer token, or why there is none. */
  const authenticateBearer = async (
    c: Context,
  ): Promise<{ tenantId: string; sub: string } | string> => {
    const token = bearerOf(c.req.header("Authorization"));
    if (!token) return "An access token is required (Authorization: Bearer)";
    const grant = await store.accessGrant(token);
    if (!grant) return "The access token is not valid";
    if (grant.expiresAt <= now()) return "The access token has expired";
    return grant;
  };

  const userinfo = async (c: Context): Promise<Response> => {
    const grant = await authenticateBearer(c);
    if (typeof grant === "string") {
      return Response.json({ error: "invalid_token", error_description: grant }, {
        status: 401,
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      });
    }
    return Response.json({
      sub: grant.sub,
      name: SANDBOX_USER_NAME,
      preferred_username: grant.sub,
    }, { headers: { "Cache-Control": "no-store" } });
  };
  app.get("/oauth2/userinfo", userinfo);
  app.post("/oauth2/userinfo", userinfo);

  // ---- REST API v3 -------------------------------------------------------

  /** Runs a REST handler with the bearer's tenant, or answers 401. */
  const api = (
    handler: (c: Context, tenant: string) => Promise<Response>,
  ) =>
  async (c: Context): Promise<Response> => {
    const grant = await authenticateBearer(c);
    if (typeof grant === "string") {
      return jiveError(401, grant, {
        "WWW-Authenticate": 'Bearer realm="sandbox", error="invalid_token"',
      });
    }
    return await handler(c, grant.tenantId);
  };

  const readJson = async (c: Context): Promise<unknown> => {
    const text = await c.req.text();
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };

  const apiLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => jiveError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes`),
  });

  app.post(
    "/api/core/v3/webhooks",
    apiLimit,
    api(async (c, tenant) => {
      const fields = validateHookFields(await readJson(c));
      if (typeof fields === "string") return jiveError(400, fields);
      const stamp = new Date(now()).toISOString();
      const hook = await store.createHook({
        ...fields,
        tenantId: tenant,
        baseUrl: baseOf(c),
        enabled: true,
        published: stamp,
        updated: stamp,
      });
      return jiveJson(200, entityOf(hook));
    }),
  );

  const intParam = (
    value: string | undefined,
    name: string,
    fallback: number,
    min: number,
  ): number | string => {
    if (value === undefined || value === "") return fallback;
    if (!/^\d{1,9}$/.test(value) || Number(value) < min) {
      return `'${name}' must be an integer of at least ${min}, got ${JSON.stringify(value.slice(0, 40))}`;
    }
    return Number(value);
  };

  app.get(
    "/api/core/v3/webhooks",
    api(async (c, tenant) => {
      const startIndex = intParam(c.req.query("startIndex"), "startIndex", 0, 0);
      if (typeof startIndex === "string") return jiveError(400, startIndex);
      const asked = intParam(
        c.req.query("count"),
        "count",
        DEFAULT_PAGE_COUNT,
        1,
      );
      if (typeof asked === "string") return jiveError(400, asked);
      const count = Math.min(asked, MAX_PAGE_COUNT);
      const { list, more } = await store.hooks(tenant, startIndex, count);
      const pageUrl = (start: number): string => {
        const url = new URL(`${baseOf(c)}/api/core/v3/webhooks`);
        url.searchParams.set("startIndex", String(start));
        url.searchParams.set("count", String(count));
        return url.href;
      };
      const links: Record<string, string> = {};
      if (startIndex > 0) links.previous = pageUrl(Math.max(0, startIndex - count));
      if (more) links.next = pageUrl(startIndex + count);
      return jiveJson(200, {
        list: list.map((hook) => entityOf(hook)),
        startIndex,
        itemsPerPage: count,
        links,
      });
    }),
  );

  app.get(
    "/api/core/v3/webhooks/:id",
    api(async (c, tenant) => {
      const id = c.req.param("id")!;
      const hook = await store.hook(tenant, id);
      if (!hook) return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      return jiveJson(200, entityOf(hook));
    }),
  );

  app.put(
    "/api/core/v3/webhooks/:id",
    apiLimit,
    api(async (c, tenant) => {
      const id = c.req.param("id")!;
      const hook = await store.hook(tenant, id);
      if (!hook) return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      const body = await readJson(c);
      const fields = validateHookFields(body);
      if (typeof fields === "string") return jiveError(400, fields);
      const enabled = (body as Record<string, unknown>).enabled;
      if (enabled !== undefined && typeof enabled !== "boolean") {
        return jiveError(400, `'enabled' must be a boolean, got ${JSON.stringify(enabled)}`);
      }
      const updated: HookRecord = {
        id: hook.id,
        tenantId: hook.tenantId,
        baseUrl: hook.baseUrl,
        ...fields,
        enabled: enabled ?? hook.enabled,
        published: hook.published,
        updated: new Date(now()).toISOString(),
      };
      await store.putHook(updated);
      return jiveJson(200, entityOf(updated));
    }),
  );

  app.delete(
    "/api/core/v3/webhooks/:id",
    api(async (c, tenant) => {
      const id = c.req.param("id")!;
      if (!(await store.deleteHook(tenant, id))) {
        return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      }
      return new Response(null, { status: 204 });
    }),
  );

  app.get(
    "/api/core/v3/places/:id",
    api((c) => {
      const id = c.req.param("id")!;
      if (id !== PLACE_ID) {
        return Promise.resolve(
          jiveError(404, `No place with id ${JSON.stringify(id)}`),
        );
      }
      const base = baseOf(c);
      return Promise.resolve(jiveJson(200, {
        id: PLACE_ID,
        placeID: PLACE_ID,
        type: "space",
        name: "Sandbox space",
        displayName: "sandbox-space",
        html: `${base}/community/sandbox-space`,
        resources: {
          self: {
            ref: `${base}/api/core/v3/places/${PLACE_ID}`,
            allowed: ["GET"],
          },
        },
      }));
    }),
  );

  app.all(
    "/api/*",
    (c) => jiveError(404, `No resource at ${c.req.method} ${new URL(c.req.url).pathname}`),
  );

  // ---- Trigger -----------------------------------------------------------

  let contentSeq = 2000;

  /** Sends the postbacks; a string when the request names no valid target. */
  const runTrigger = async (
    options: TriggerOptions,
  ): Promise<TriggerSummary | { status: 400 | 404; message: string }> => {
    const { webhookId, event, verb } = options;
    if (webhookId !== undefined && typeof webhookId !== "string") {
      return { status: 400, message: "'webhookId' must be a string" };
    }
    if (event !== undefined && (typeof event !== "string" || !isKnownEvent(event))) {
      return {
        status: 400,
        message: `'event' must be an event name, got ${JSON.stringify(event)}`,
      };
    }
    if (
      verb !== undefined && (typeof verb !== "string" || !/^jive:[a-z_]{1,60}$/.test(verb))
    ) {
      return {
        status: 400,
        message: `'verb' must look like "jive:created", got ${JSON.stringify(verb)}`,
      };
    }
    let hooks: HookRecord[];
    if (webhookId) {
      const hook = await store.hook(tenantId, webhookId);
      if (!hook) {
        return { status: 404, message: `No webhook with id ${JSON.stringify(webhookId)}` };
      }
      hooks = [hook];
    } else {
      hooks = await store.allHooks(tenantId);
    }
    hooks = hooks.filter((hook) => hook.enabled && (event === undefined || hook.events.includes(event)));
    const client = await store.client("community");
    const ctx = {
      fetch: fetchFn,
      now: signingNow,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    };
    const delivered = await Promise.all(hooks.map((hook) => {
      const kind = event ?? hook.events[0];
      const activityVerb = verb ?? defaultVerb(kind);
      const postback = buildPostback(
        hook,
        selfRefOf(hook),
        kind,
        activityVerb,
        now(),
        ++contentSeq,
      );
      return deliver(ctx, hook, kind, postback);
    }));
    return { delivered };
  };

  app.post(
    "/trigger",
    bodyLimit({ maxSize: MAX_BODY_BYTES }),
    csrf(),
    async (c) => {
      const type = c.req.header("Content-Type") ?? "";
      const isForm = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i
        .test(type);
      let options: TriggerOptions = {};
      if (isForm) {
        const form = await c.req.parseBody();
        for (const name of ["webhookId", "event", "verb"] as const) {
          const value = form[name];
          if (typeof value === "string" && value !== "") options[name] = value;
        }
      } else {
        const text = await c.req.text();
        let body: unknown = {};
        try {
          body = text.trim() === "" ? {} : JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          return c.json({ error: "The body must be a JSON object" }, 400);
        }
        options = body as TriggerOptions;
      }
      const result = await runTrigger(options);
      if ("status" in result) {
        return isForm ? c.text(result.message, result.status) : c.json({ error: result.message }, result.status);
      }
      if (!isForm) return c.json(result);
      // An HTML form: back to the page it came from (same origin only).
      const origin = new URL(c.req.url).origin;
      let back = new URL(`${origin}${basePath}/`);
      const referer = c.req.header("Referer");
      if (referer) {
        try {
          const url = new URL(referer);
          if (url.origin === origin) back = url;
        } catch {
          // Keep the sandbox index.
        }
      }
      const failed = result.delivered.filter((d) => d.status < 200 || d.status > 299)
        .length;
      back.searchParams.set("triggered", String(result.delivered.length));
      if (failed > 0) back.searchParams.set("failed", String(failed));
      else back.searchParams.delete("failed");
      return c.redirect(back.href, 303);
    },
  );

  // ---- Index ---------------------------------------------------------------

  const index = async (c: Context): Promise<Response> => {
    const origin = new URL(c.req.url).origin;
    const community = await store.client("community");
    const hooks = await store.allHooks(tenantId);
    return c.html(indexPage({
      basePath,
      baseUrl: origin + basePath,
      placeUri: placeFor(origin),
      tenantId,
      communityClientId: community.clientId,
      hooks,
      triggered: c.req.query("triggered"),
      failed: c.req.query("failed"),
    }));
  };
  app.get("/", index);
  // Mounted with app.route(), "/" matches "/sandbox" only; serve "/sandbox/" too.
  app.get("*", (c) => new URL(c.req.url).pathname === `${basePath}/` ? index(c) : c.notFound());

  return {
    app,
    basePath,
    async communityFor(origin: string): Promise<SandboxCommunityRecord> {
      const base = originOf(origin, "the community record") + basePath;
      const client = await store.client("community");
      return {
        name: SANDBOX_COMMUNITY.name,
        tenantId: SANDBOX_COMMUNITY.tenantId,
        baseUrl: base,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
      };
    },
    async oauthClientFor(origin: string): Promise<SandboxOAuthClient> {
      const server = authorizationServerFor(origin);
      const client = await store.client("console");
      return {
        authorizationEndpoint: server.authorization_endpoint,
        tokenEndpoint: server.token_endpoint,
        userinfoEndpoint: server.userinfo_endpoint,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        scope: "sandbox",
        issuer: server.issuer,
        redirectUris: { sameOriginAs: new URL(server.issuer).origin },
        authorizationServer: server,
      };
    },
    authorizationServerFor,
    placeFor,
    expireTokens(): Promise<number> {
      return store.expireAccessTokens(now() - 1);
    },
    async trigger(options: TriggerOptions = {}): Promise<TriggerSummary> {
      const result = await runTrigger(options);
      if ("status" in result) {
        throw result.status === 404
          ? new RangeError(`Cannot trigger: ${result.message}`)
          : new TypeError(`Cannot trigger: ${result.message}`);
      }
      return result;
    },
  };
}

/** Every sandbox KV key starts with this. */
export const SANDBOX_KV_PREFIX: readonly string[] = [ROOT];
