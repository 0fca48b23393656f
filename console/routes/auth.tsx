/**
 * Sign-in (OAuth authorization code with PKCE against the configured
 * provider, or the sandbox), the callback, and sign-out.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { Layout } from "../components/Layout.tsx";
import {
  type ConsoleEnv,
  cookieName,
  type Deps,
  html,
  noticeOf,
  OAUTH_COOKIE,
  safeReturnTo,
  secureCookies,
  SESSION_COOKIE,
} from "../lib/context.ts";
import {
  authorizationUrl,
  describeOAuthError,
  exchangeCode,
  fetchUser,
  newAuthorizationSecrets,
  type OAuthProvider,
  providerBusy,
  tooManyRequestsMessage,
} from "../lib/oauth.ts";
import { type PendingAuthorization, timingSafeEqual } from "../lib/session.ts";

/** The path the sign-in provider sends the browser back to. */
export const SIGNIN_CALLBACK_PATH = "/auth/callback";

/** What {@linkcode startAuthorization} needs to know. */
export interface AuthorizationStart {
  /** The provider whose consent page the browser goes to. */
  provider: OAuthProvider;
  /** The console's path the provider sends the browser back to. */
  callbackPath: string;
  /** What the authorization is for and where it leads (its PKCE secrets are added here). */
  pending: Omit<PendingAuthorization, "codeVerifier" | "state">;
}

/**
 * Starts an OAuth authorization: stores it as pending with fresh PKCE
 * secrets, binds it to the browser with the pending-authorization cookie
 * (ten minutes, HttpOnly, SameSite=Lax) and redirects to the provider's
 * consent page. Sign-in and connecting a community both start this way.
 *
 * @param c the request context
 * @param deps the console's dependencies
 * @param start the provider, the callback path and the pending authorization
 * @returns the redirect to the provider
 */
export async function startAuthorization(
  c: Context<ConsoleEnv>,
  deps: Deps,
  start: AuthorizationStart,
): Promise<Response> {
  const secrets = newAuthorizationSecrets();
  const pendingId = await deps.sessions.savePending({ ...start.pending, ...secrets });
  // Added to the authorizations this browser has in progress (two tabs sent to sign-in): each can complete.
  setPendingIds(c, deps, [...pendingIds(c, deps), pendingId].slice(-MAX_PENDING));
  const url = await authorizationUrl(
    start.provider,
    deps.publicUrl + start.callbackPath,
    secrets,
  );
  return c.redirect(url.href, 302);
}

/** Most authorizations one browser has in progress at once; a new one pushes out the oldest. */
const MAX_PENDING = 4;

/** The ids of the authorizations this browser has in progress, oldest first (the pending cookie holds them). */
function pendingIds(c: Context<ConsoleEnv>, deps: Deps): string[] {
  const value = getCookie(c, cookieName(c, deps, OAUTH_COOKIE)) ?? "";
  return value.split(".").filter((id) => /^[\w-]{1,100}$/.test(id)).slice(-MAX_PENDING);
}

/** Binds `ids` to the browser for ten minutes (HttpOnly, SameSite=Lax), or drops the cookie when there is none. */
function setPendingIds(c: Context<ConsoleEnv>, deps: Deps, ids: string[]): void {
  const secure = secureCookies(deps, c.req.url);
  if (ids.length === 0) return void deleteCookie(c, cookieName(c, deps, OAUTH_COOKIE), { path: "/", secure });
  setCookie(c, cookieName(c, deps, OAUTH_COOKIE), ids.join("."), {
    httpOnly: true,
    sameSite: "Lax",
    secure,
    path: "/",
    maxAge: 600,
  });
}

/**
 * Takes the authorization an OAuth callback completes: the one of this browser (its pending cookie) whose `state`
 * the callback carries. The others stay in progress; a callback whose state is none of them takes nothing.
 *
 * @param c the callback's request context
 * @param deps the console's dependencies
 * @returns the pending authorization, or `null`
 */
export async function takeAuthorization(c: Context<ConsoleEnv>, deps: Deps): Promise<PendingAuthorization | null> {
  const ids = pendingIds(c, deps);
  const state = c.req.query("state");
  if (!state) return null;
  for (const id of ids) {
    const pending = await deps.sessions.takePending(id, state);
    if (pending) {
      setPendingIds(c, deps, ids.filter((other) => other !== id));
      return pending;
    }
  }
  return null;
}

/** What the sign-in page says to a form sent after its session ended. */
const ENDED_NOTICE =
  "Your session has ended, so the form you sent was not saved. Sign in again to go back to its page, with what you typed.";

/** The sign-in page's error for its `error` (and `wait`) parameters, or none. */
function signinError(error: string | undefined, wait: string | undefined): string | undefined {
  if (error === "busy") return `${tooManyRequestsMessage(wait && /^\d{1,6}$/.test(wait) ? Number(wait) : null)}.`;
  return error === "1" ? "The sign-in did not complete. Please try again." : undefined;
}

/** Adds the sign-in routes to `app`. */
export function authRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.get("/signin", (c) => {
    const returnTo = safeReturnTo(c.req.query("returnTo"));
    const provider = deps.sandbox &&
        deps.signin.authorizationEndpoint.startsWith(
          `${deps.publicUrl}/sandbox/`,
        )
      ? "the sandbox community"
      : new URL(deps.signin.authorizationEndpoint).host;
    const error = signinError(c.req.query("error"), c.req.query("wait"));
    const ended = c.req.query("ended") === "1";
    return html(
      c,
      <Layout title="Sign in" notice={ended ? ENDED_NOTICE : noticeOf(c)} error={error}>
        <p>
          The console manages the webhooks of your communities. Sign in with {provider} to continue.
        </p>
        <p>
          <a
            class="button"
            id="signin-link"
            href={`/auth/login?${new URLSearchParams({ returnTo })}`}
          >
            Sign in with {provider}
          </a>
        </p>
      </Layout>,
    );
  });

  app.get("/auth/login", (c) =>
    startAuthorization(c, deps, {
      provider: deps.signin,
      callbackPath: SIGNIN_CALLBACK_PATH,
      pending: { kind: "signin", returnTo: safeReturnTo(c.req.query("returnTo")) },
    }));

  app.get(SIGNIN_CALLBACK_PATH, async (c) => {
    const pending = await takeAuthorization(c, deps);
    if (!pending || pending.kind !== "signin") {
      return c.redirect("/signin?error=1", 302);
    }
    try {
      const tokens = await exchangeCode(
        deps.signin,
        new URL(c.req.url),
        deps.publicUrl + SIGNIN_CALLBACK_PATH,
        pending,
        deps.fetch,
      );
      const user = await fetchUser(
        deps.signin,
        tokens.access_token,
        deps.fetch,
      );
      // A fresh session id at every sign-in; the session the browser held
      // before (if any) ends, so a planted or stolen id dies here.
      await deps.sessions.destroy(getCookie(c, cookieName(c, deps, SESSION_COOKIE)));
      const id = await deps.sessions.create(user);
      setCookie(c, cookieName(c, deps, SESSION_COOKIE), id, {
        httpOnly: true,
        sameSite: "Lax",
        secure: secureCookies(deps, c.req.url),
        path: "/",
        maxAge: Math.max(1, Math.ceil(deps.sessions.ttlMs / 1000)),
      });
      // What the browser kept of an earlier session's pages goes (Back must not lead to them).
      c.header("Clear-Site-Data", '"cache"');
      return c.redirect(pending.returnTo, 302);
    } catch (err) {
      console.warn(`Sign-in failed: ${describeOAuthError(err)}`);
      // The provider's 429 is named on the page, with its wait: "try again" at once would only be refused again.
      const busy = providerBusy(err);
      if (busy !== undefined) return c.redirect(`/signin?error=busy${busy === null ? "" : `&wait=${busy}`}`, 302);
      return c.redirect("/signin?error=1", 302);
    }
  });

  // Whether the page asking is one of the browser's session as it is now: 204 when its token (`X-CSRF-Token`, the
  // session's) is the current session's, else 401. A page that comes back from the browser's caches asks before it
  // shows itself (islands/_client.ts): the session may have ended, or another user may have signed in since.
  app.get("/session", (c) => {
    c.header("Cache-Control", "no-store");
    const session = c.get("session");
    const token = c.req.header("x-csrf-token") ?? "";
    return c.body(null, session && token && timingSafeEqual(token, session.csrf) ? 204 : 401);
  });

  app.post("/signout", async (c) => {
    await deps.sessions.destroy(getCookie(c, cookieName(c, deps, SESSION_COOKIE)));
    deleteCookie(c, cookieName(c, deps, SESSION_COOKIE), { path: "/", secure: secureCookies(deps, c.req.url) });
    // The browser drops what its HTTP cache kept of the signed-in pages; a page in the back/forward cache (kept
    // there so that live pages come back at once) checks the session before it shows itself again.
    c.header("Clear-Site-Data", '"cache"');
    return c.redirect("/signin?notice=signedout", 303);
  });
}
