/**
 * What the console's routes share: the Hono environment (the session of the
 * request) and the dependencies `createApp` wires together.
 *
 * @module
 */

import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import type { Relay, Webhooks } from "../../webhooks/mod.ts";
import type { RateLimiter } from "./rate_limit.ts";
import type { LiveStreamCaps } from "./live_streams.ts";
import type { HookLabels } from "./labels.ts";
import type { DeliveryStore } from "../log/mod.ts";
import type { OAuthProvider } from "./oauth.ts";
import type { Session, SessionStore } from "./session.ts";
import { renewalHint } from "./_renewal_hint.ts";

/** The Hono environment of the console. */
export interface ConsoleEnv {
  Variables: {
    /** The signed-in session, or `null`. */
    session: Session | null;
  };
}

/** The console's dependencies, shared by every route. */
export interface Deps {
  /** The KV every store lives in. */
  kv: Deno.Kv;
  /** Module A. */
  webhooks: Webhooks;
  /** Sessions and pending authorizations. */
  sessions: SessionStore;
  /** Stored deliveries. */
  deliveries: DeliveryStore;
  /** This console's public origin, e.g. `http://127.0.0.1:8000` (no trailing slash). */
  publicUrl: string;
  /** Whether outbound calls (the sandbox's postbacks too) may reach loopback, private and link-local hosts. */
  allowPrivateNetwork?: boolean;
  /** The sign-in provider. */
  signin: OAuthProvider;
  /** Whether the sandbox is mounted under `/sandbox`. */
  sandbox: boolean;
  /** The sandbox's sample place URI (the `object` of content hooks), when it is on. */
  sandboxPlace?: string;
  /** Age after which reconcile counts a pending registration as interrupted (Module A's `staleAfter`). */
  staleAfterMs?: number;
  /** The fetch used for OAuth and platform calls. */
  fetch: typeof fetch;
  /**
   * Base URLs of the sandbox community stored by another console on this
   * KV: this console answers for them in-process, and sends browsers to its
   * own sandbox instead.
   */
  sandboxAliases: Set<string>;
  /** Names and descriptions of hooks. */
  labels: HookLabels;
  /** The rate limits (sign-in, forms, receiver, sandbox). */
  limiter: RateLimiter;
  /** The caps on open live streams (`GET /deliveries/events`); missing ones take the defaults. */
  liveStreams?: Partial<LiveStreamCaps>;
  /**
   * Sends a test event to one hook of the sandbox community (by its
   * platform id), when the sandbox is on; resolves with what the platform
   * reports of each postback: the callback's status, or 0 with why it could
   * not be reached (none when the hook is disabled on the platform). Rejects
   * with a `RangeError` when the platform has no such hook.
   */
  sandboxTest?: (platformId: string) => Promise<{ status: number; error?: string; cause?: string }[]>;
  /**
   * Asks the sandbox to send again a postback it sent to one of its hooks
   * (by its platform id and the timestamp of the postback's signature), when
   * the sandbox is on; resolves with how the new postback went. Rejects with
   * a `RangeError` when the hook or the postback is not known any more, a
   * `TypeError` when the hook is disabled.
   */
  sandboxRedeliver?: (platformId: string, timestamp: number) => Promise<{ status: number; error?: string }>;
  /**
   * Runs a request through the receiver of `/hooks/{id}` as a replay the
   * console sends itself; set by the receiver's routes.
   */
  replayToReceiver?: (id: string, request: Request) => Promise<Response>;
  /** Ends the server-sent event streams when the app closes. */
  closing: AbortSignal;
  /** Forwards received postbacks to the hooks' destinations (docs/relay.md). */
  relay: Relay;
}

/** The cookie holding the session id. */
export const SESSION_COOKIE = "cw_session";
/** The cookie binding a pending OAuth authorization to the browser. */
export const OAUTH_COOKIE = "cw_oauth";

/** Whether cookies must be `Secure`: the console is served over https. */
export function secureCookies(deps: Deps, url: string): boolean {
  return deps.publicUrl.startsWith("https:") || url.startsWith("https:");
}

/**
 * The name of the console's cookie `base` for this request: over https it
 * carries the `__Host-` prefix, so that browsers accept it only `Secure`,
 * for path `/` and without `Domain` (no sibling host can set or shadow it).
 */
export function cookieName(c: Context<ConsoleEnv>, deps: Deps, base: string): string {
  return secureCookies(deps, c.req.url) ? `__Host-${base}` : base;
}

/** The session id this request's cookie carries, `""` when it has none (what one-time form tokens are bound to). */
export function sessionIdOf(c: Context<ConsoleEnv>, deps: Deps): string {
  return getCookie(c, cookieName(c, deps, SESSION_COOKIE)) ?? "";
}

/**
 * Renders a page as an HTML response.
 *
 * @param c the request context
 * @param page the page's virtual DOM (a `Layout`)
 * @param status the HTTP status
 * @returns the response
 */
export function html(
  c: Context<ConsoleEnv>,
  page: VNode,
  status: 200 | 400 | 403 | 404 | 409 | 413 | 500 | 502 = 200,
): Response {
  return c.html("<!DOCTYPE html>" + renderToString(page), status);
}

/** What every signed-in page passes to `Layout`: who is signed in, the sign-out form's token, the sandbox link. */
export interface LayoutFrame {
  /** The signed-in user's name. */
  user: string;
  /** The session's CSRF token. */
  csrf: string;
  /** Whether the sandbox link shows. */
  sandbox: boolean;
  /** The page's path, to mark the current navigation link. */
  path: string;
}

/**
 * The `Layout` props of a signed-in page, read from the request's session.
 *
 * @param c the request context (its session must be set)
 * @param deps the console's dependencies
 * @returns the user's name, the session's CSRF token and whether the sandbox is on
 */
export function layoutFrame(c: Context<ConsoleEnv>, deps: Deps): LayoutFrame {
  const session = c.get("session")!;
  return {
    user: session.user.name,
    csrf: session.csrf,
    sandbox: deps.sandbox,
    path: c.req.path,
  };
}

/** A stand-in origin to resolve `returnTo` against, as a browser would. */
const LOCAL_BASE = "http://console.invalid";

/**
 * A local path to go back to: only `/...` paths of this origin, never
 * `//host`. The value is resolved the way a browser resolves a `Location`
 * header (it drops tabs and newlines, reads `\` as `/`, collapses `/./`),
 * and the normalized path is returned, so what the browser follows is
 * exactly what was checked.
 */
export function safeReturnTo(value: string | undefined | null): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.length > 2000) return "/";
  let url: URL;
  try {
    url = new URL(value, LOCAL_BASE);
  } catch {
    return "/";
  }
  if (url.origin !== LOCAL_BASE) return "/";
  const path = url.pathname + url.search + url.hash;
  // `/.//host` normalizes to `//host`, which a browser reads as a host.
  if (!path.startsWith("/") || path.startsWith("//")) return "/";
  return path;
}

/** Messages a redirect can ask a page to show (`?notice=code`). */
export const NOTICES: Record<string, string> = {
  signedout: "You are signed out.",
  saved: "The community is saved.",
  removed: "The community is removed.",
  "secret-revoked": "The previous client secret is refused from now on: only the current one verifies postbacks.",
  // Also the answer to Revoke clicked twice at once (the second finds the first's done): true either way.
  "no-secret-to-revoke": "No previous client secret is kept: only the current one verifies postbacks (its overlap " +
    "had ended, or it was refused already).",
  connected: "The community is connected: its tokens are stored.",
  registered: "The webhook is registered.",
  unregistered: "The webhook is unregistered.",
  forgotten: "The webhook is forgotten here; the platform was not asked.",
  fixed: "The fixes are applied.",
  triggered: "A test event was sent.",
  replayed: "The delivery was sent to the receiver again, as a replay.",
  redelivered: "The platform delivered it again: the callback accepted it (the newest delivery below).",
  "redelivery-failed": "The platform sent it again, and it failed again: the newest delivery below says why.",
  "saved-label": "The name and description are saved.",
  enabled: "The webhook is enabled: the platform posts its events again.",
  disabled: "The webhook is disabled: the platform posts nothing until it is enabled.",
  "events-saved": "The webhook's events are saved on the platform.",
  "callback-moved": "The callback now points at this console: the platform posts here.",
};

/** The notice of a `?notice=` code, if known. */
export function noticeOf(c: Context<ConsoleEnv>): string | undefined {
  const code = c.req.query("notice") ?? "";
  return Object.hasOwn(NOTICES, code) ? NOTICES[code] : undefined; // not `toString` and the like, which every object has
}

/** Describes an error for a page without leaking secrets (no stack, no tokens). */
export function describeError(err: unknown): string {
  if (err && typeof err === "object" && "error" in err) {
    const e = (err as { error: unknown }).error;
    if (typeof e === "string") return e;
  }
  if (err instanceof Error) {
    return err.message.replace(
      /(access_token|refresh_token|client_secret|code)=[^&\s]+/gi,
      "$1=…",
    ) + renewalHint(err);
  }
  return "Unexpected error";
}
