/**
 * Where the console's rate limits apply: sign-in and the start of a
 * community's connect (per client address, both OAuth starts), the
 * sandbox's trigger and its consent form (per client address; its token
 * endpoint and REST API are the platform's, used server to server by the
 * console and the CLI, and are not limited), and the console's own form
 * posts (per session, counted only once a post passed the CSRF checks, so
 * that forgeries refused 403 spend none of a user's allowance). The receiver's limit is per verified tenant and
 * applies in its route (`hooks.ts`).
 *
 * @module
 */

import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { type ConsoleEnv, cookieName, type Deps, SESSION_COOKIE } from "../lib/context.ts";
import { atRest } from "../lib/kv_keys.ts";
import { type RateBucket, tooManyRequests } from "../lib/rate_limit.ts";
import { sandboxTooManyRequests } from "../../sandbox/mod.ts";
import { SIGNIN_CALLBACK_PATH } from "./auth.tsx";

/**
 * Starting a community's connect: like sign-in, it stores a pending OAuth authorization for ten minutes, so it counts
 * against the sign-in limit of its address (a client looping on the link stored one per request).
 */
const CONNECT_START = /^\/communities\/[^/]+\/connect\/?$/;

/** The sandbox's trigger and redelivery (both send postbacks), the parts of the sandbox that are rate limited. */
const SANDBOX_TRIGGER = /^\/sandbox\/(?:trigger|redeliver)\/?$/;

/**
 * The sandbox's consent form (its browser-facing OAuth step, which anyone may approve): each approval stores a code,
 * which the console's callback turns into a token pair kept 30 days. Its token endpoint, called server to server
 * from the console's own address, is not limited.
 */
const SANDBOX_CONSENT = /^\/sandbox\/oauth2\/authorize\/?$/;

/** The client's address as the server saw it (a proxy's, behind one), or `"unknown"`. */
export const clientAddresses: WeakMap<Request, string> = new WeakMap();

function addressOf(c: Context<ConsoleEnv>): string {
  return clientAddresses.get(c.req.raw) ?? "unknown";
}

/**
 * Whose form posts count together: the session, by its id's hash (the KV keeps no bearer id, see `kv_keys.ts`), or
 * the client's address without one. The limiter counts under it and the limits shown on a page read it.
 */
export function formsKeyOf(c: Context<ConsoleEnv>, deps: Deps): string {
  const session = getCookie(c, cookieName(c, deps, SESSION_COOKIE));
  return session === undefined ? addressOf(c) : atRest(session);
}

/** The middleware counting sign-in and the sandbox's trigger per client address, and answering 429 beyond the limit. */
export function rateLimits(deps: Deps): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const path = c.req.path;
    const unsafe = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    let bucket: RateBucket | null = null;
    if (path === "/auth/login" || path === SIGNIN_CALLBACK_PATH || !unsafe && CONNECT_START.test(path)) {
      bucket = "signin";
    } else if (unsafe && SANDBOX_TRIGGER.test(path)) bucket = "sandbox";
    else if (unsafe && SANDBOX_CONSENT.test(path)) bucket = "consents";
    if (bucket) {
      const verdict = await deps.limiter.hit(bucket, addressOf(c));
      if (!verdict.ok) {
        return bucket === "sandbox" || bucket === "consents"
          ? await sandboxTooManyRequests(c.req.raw, verdict.retryAfter)
          : tooManyRequests(verdict);
      }
    }
    await next();
  };
}

/**
 * Counts a form post of a signed-in session that passed the CSRF checks (the
 * guard calls it then); the 429 answer beyond the limit, else `null`.
 */
export async function formsLimit(c: Context<ConsoleEnv>, deps: Deps): Promise<Response | null> {
  if (!c.get("session")) return null;
  const verdict = await deps.limiter.hit("forms", formsKeyOf(c, deps));
  return verdict.ok ? null : tooManyRequests(verdict);
}

/**
 * Whether a form sent without a session may be kept for after sign-in (the
 * guard asks, once the form is one of the console's and trusted): each
 * counts against its client address's allowance of kept forms, past which
 * the form is led to sign-in with nothing kept.
 */
export async function mayKeepForm(c: Context<ConsoleEnv>, deps: Deps): Promise<boolean> {
  return (await deps.limiter.hit("drafts", addressOf(c))).ok;
}
