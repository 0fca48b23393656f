// The sandbox's small helpers: option checks, the platform's JSON answers and
// errors (with the anti-hijacking line), OAuth error bodies, the entity of a
// hook, and the parsing of Basic, Bearer and form credentials.

import type { Context, MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { type HookRecord, REFRESH_TTL_MS } from "./_store.ts";
import {
  ANTI_HIJACKING_PREFIX,
  DEFAULT_BASE_PATH,
  DEFAULT_COMMUNITY_REDIRECT_PATH,
  DEFAULT_CONSOLE_REDIRECT_PATH,
  DEFAULT_TOKEN_TTL_SECONDS,
  type SandboxOptions,
} from "./types.ts";

/** Largest request body the sandbox reads. */
export const MAX_BODY_BYTES = 64 * 1024;
/** What a body over {@linkcode MAX_BODY_BYTES} is told. */
export const BODY_TOO_LARGE = `The request body is larger than ${MAX_BODY_BYTES} bytes`;
/** What a form over {@linkcode MAX_BODY_BYTES} is told. */
export const FORM_TOO_LARGE = `The form is larger than ${MAX_BODY_BYTES} bytes`;
/** What a form posted from another site is told. */
export const CROSS_SITE_FORM =
  "The form was sent from another site (its Origin is not this sandbox's): post it from the sandbox's own page";

/**
 * Hono's CSRF check, its refusal answered by `refuse` in the route's own
 * shape instead of a bare "Forbidden" (which names nothing).
 */
export function csrfOr(refuse: (c: Context) => Response | Promise<Response>): MiddlewareHandler {
  const check = csrf();
  return async (c, next) => {
    let passed = false;
    try {
      await check(c, async () => {
        passed = true;
        await next();
      });
    } catch (error) {
      if (!passed && error instanceof HTTPException && error.status === 403) return await refuse(c);
      throw error;
    }
  };
}

/** The parameters the authorization endpoint reads (its consent form adds `decision`). */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
] as const;
/** The parameters the token endpoint reads. */
export const TOKEN_PARAMS = [
  "grant_type",
  "code",
  "redirect_uri",
  "code_verifier",
  "refresh_token",
  "client_id",
  "client_secret",
  "scope",
] as const;

/**
 * The first of `names` that a request sends more than once, by `count`, if
 * any: RFC 6749 (3.1, 3.2) has each parameter sent once, and refuses a
 * repeat (`invalid_request`) rather than picking one of its values.
 */
export function repeatedParameter(names: readonly string[], count: (name: string) => number): string | undefined {
  return names.find((name) => count(name) > 1);
}

/** What a request that repeats `name` is told. */
export function repeatedMessage(name: string): string {
  return `${name} is repeated: each parameter may be sent once`;
}

/** The id of the sandbox's one place. */
export const PLACE_ID = "1000";

export function checkOptions(options: SandboxOptions): {
  kv: Deno.Kv;
  basePath: string;
  ttlSeconds: number;
  refreshTtlSeconds: number;
  fetchFn: typeof fetch;
  now: () => number;
  communityRedirectPath: string;
  consoleRedirectPath: string;
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
  const ttlSeconds = seconds(options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS, "tokenTtlSeconds");
  const refreshTtlSeconds = seconds(options.refreshTokenTtlSeconds ?? REFRESH_TTL_MS / 1000, "refreshTokenTtlSeconds");
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
  const communityRedirectPath = redirectPath(options.communityRedirectPath, "communityRedirectPath");
  const consoleRedirectPath = redirectPath(options.consoleRedirectPath, "consoleRedirectPath");
  return { kv, basePath, ttlSeconds, refreshTtlSeconds, fetchFn, now, communityRedirectPath, consoleRedirectPath };
}

/** A lifetime option, checked: a positive integer of seconds. */
function seconds(value: number, name: string): number {
  if (Number.isInteger(value) && value >= 1) return value;
  throw new RangeError(`Cannot create sandbox: '${name}' must be a positive integer, got ${value}`);
}

/** A client's redirect path option, checked; its default when not given. */
function redirectPath(value: unknown, name: "communityRedirectPath" | "consoleRedirectPath"): string {
  const fallback = name === "communityRedirectPath" ? DEFAULT_COMMUNITY_REDIRECT_PATH : DEFAULT_CONSOLE_REDIRECT_PATH;
  const path = value ?? fallback;
  if (typeof path !== "string" || !/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) {
    throw new TypeError(
      `Cannot create sandbox: '${name}' must be a path such as "${fallback}", got ${JSON.stringify(path)}`,
    );
  }
  return path;
}

export function originOf(origin: string, what: string): string {
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
export function jiveJson(status: number, body: unknown): Response {
  return new Response(ANTI_HIJACKING_PREFIX + JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
    },
  });
}

/** The platform's error body, prefixed. */
export function jiveError(
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
export function oauthError(
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

export function entityOf(hook: HookRecord, origin?: string): Record<string, unknown> {
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

export function selfRefOf(hook: HookRecord): string {
  return `${hook.baseUrl}/api/core/v3/webhooks/${hook.id}`;
}

export function parseBasic(header: string | undefined): [string, string] | null {
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
export function formDecode(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return null;
  }
}

export function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1] : null;
}

export const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
export const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Creates the sandbox community: a Hono app emulating the platform's
 * webhook API, OAuth server and postbacks, with all state in `kv` under
 * keys starting with `"sandbox"`.
 *
 * @param options The KV store, mount point, token lifetime, fetch and clock.
 * @returns The sandbox, whose `app` the console mounts at `basePath`.
 * @throws {TypeError} When `kv` is not a Deno.Kv, `basePath` is not a path
 *   without a trailing slash, or `fetch` / `now` is not a function.
 * @throws {RangeError} When `tokenTtlSeconds` or `refreshTokenTtlSeconds` is not a positive integer.
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
