/**
 * The console's guards, in the order a request meets them: GETs sent to the
 * public origin, secure headers and the CSP, the session, rate limits per
 * client address, the sign-in redirect, and for unsafe requests the origin
 * check, the form size limit, the CSRF token and then the session's form rate
 * limit; and the error pages. Routes come after them.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { getCookie } from "hono/cookie";
import { bodyLimit } from "hono/body-limit";
import { csrf } from "hono/csrf";
import { secureHeaders } from "hono/secure-headers";
import { MessagePage } from "../components/Message.tsx";
import {
  type ConsoleEnv,
  cookieName,
  type Deps,
  describeError,
  html,
  safeReturnTo,
  SESSION_COOKIE,
} from "./context.ts";
import { formPage, keepForm } from "./drafts.ts";
import { COMMUNITY_CALLBACK_PATH } from "./sandbox_connect.ts";
import { timingSafeEqual } from "./session.ts";
import { formsLimit, mayKeepForm, rateLimits } from "../routes/rate_limits.ts";

/** Paths reachable without a session. */
function isPublic(path: string): boolean {
  return path === "/signin" || path === "/healthz" || path === "/session" ||
    path.startsWith("/auth/") && path !== COMMUNITY_CALLBACK_PATH ||
    path === "/sandbox" || path.startsWith("/sandbox/") ||
    path.startsWith("/hooks/") || path.startsWith("/static/");
}

/** Paths whose unsafe requests skip the console's CSRF checks. */
function csrfExempt(path: string): boolean {
  // The receiver authenticates by signature; the sandbox guards its own forms.
  return path.startsWith("/hooks/") || path === "/sandbox" ||
    path.startsWith("/sandbox/");
}

/** Names of this machine that a browser may use interchangeably. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Largest form body the console's own pages accept. */
const MAX_FORM_BYTES = 256 * 1024;

const CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/**
 * The sandbox's pages: no scripts, one inline style sheet, never framed
 * (its consent page asks for `X-Frame-Options: DENY` itself).
 */
const SANDBOX_CSP = {
  defaultSrc: ["'none'"],
  styleSrc: ["'unsafe-inline'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

/** Installs the guards and the error handler on `app`. */
export function installGuards(app: Hono<ConsoleEnv>, deps: Deps, publicUrl: string): void {
  // A browser on `localhost` when the console is `127.0.0.1` (or the other
  // way round) would keep its cookies on the wrong host for the OAuth
  // redirects: send GETs to the public origin.
  const publicHost = new URL(publicUrl);
  app.use("*", async (c, next) => {
    if (c.req.method !== "GET" || !LOOPBACK.has(publicHost.hostname)) return await next();
    const url = new URL(c.req.url);
    if (
      url.host === publicHost.host || !LOOPBACK.has(url.hostname) ||
      url.port !== publicHost.port
    ) {
      return await next();
    }
    return c.redirect(publicUrl + url.pathname + url.search, 302);
  });

  const pageHeaders = secureHeaders({ contentSecurityPolicy: CSP });
  const sandboxHeaders = secureHeaders({ contentSecurityPolicy: SANDBOX_CSP, xFrameOptions: "DENY" });
  app.use("*", async (c, next) => {
    const path = c.req.path;
    const sandboxPath = path === "/sandbox" || path.startsWith("/sandbox/");
    return await (sandboxPath ? sandboxHeaders : pageHeaders)(c, next);
  });

  app.use("*", async (c, next) => {
    const id = getCookie(c, cookieName(c, deps, SESSION_COOKIE));
    c.set("session", id ? await deps.sessions.get(id) : null);
    await next();
  });

  app.use("*", rateLimits(deps));

  const allowedOrigin = (origin: string, c: Context<ConsoleEnv>): boolean =>
    origin === publicUrl || origin === new URL(c.req.url).origin;
  // hono/csrf checks the content types a cross-site form can send; this
  // checks every other one too: a browser names the page's origin (or at
  // least the site) on each unsafe request, other clients still need the
  // token.
  const originCheck = csrf({ origin: allowedOrigin });
  // (Under `Referrer-Policy: no-referrer` browsers send `Origin: null` on
  // form posts; `Sec-Fetch-Site: same-origin` then vouches, as in hono/csrf.)
  const fromThisOrigin = (c: Context<ConsoleEnv>): boolean => {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    if (site === "same-origin") return true;
    if (origin !== undefined) return allowedOrigin(origin, c);
    return site === undefined || site === "none";
  };

  app.use("*", async (c, next) => {
    const path = c.req.path;
    if (isPublic(path) || c.get("session")) return await next();
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      // A Connect's callback carries an authorization code (and its state): never into sign-in's link, its pending
      // record or a redirect. Back to the communities instead, where Connect starts again.
      const returnTo = path === COMMUNITY_CALLBACK_PATH
        ? "/communities"
        : safeReturnTo(path + new URL(c.req.url).search);
      return c.redirect(`/signin?${new URLSearchParams({ returnTo })}`, 302);
    }
    // Sign out sent again once its session is gone (a double click, a second tab, Back then resubmit): it is signed
    // out, as the first one said, not "your session ended, so the form you sent was not saved".
    if (path === "/signout" && c.req.method === "POST") return c.redirect("/signin?notice=signedout", 303);
    // A form sent after its session ended: after sign-in, back to the page
    // the form was on (its POST URL has no page), with what it could keep.
    // Anyone can send one: an address gets a bounded number kept (past it, the form's page with nothing kept).
    const keep = fromThisOrigin(c) && formPage(c.req.path) !== null && await mayKeepForm(c, deps);
    const returnTo = safeReturnTo(await keepForm(c, deps, keep));
    return c.redirect(`/signin?${new URLSearchParams({ returnTo, ended: "1" })}`, 303);
  });
  const formLimit = bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: (c) => {
      // The rest of the body is left unread: the client is told not to send on this connection again.
      c.header("connection", "close");
      return html(
        c,
        MessagePage({ title: "Request too large", message: "The form is larger than the console accepts." }),
        413,
      );
    },
  });
  app.use("*", async (c, next) => {
    if (
      ["GET", "HEAD", "OPTIONS"].includes(c.req.method) ||
      csrfExempt(c.req.path)
    ) {
      return await next();
    }
    if (!fromThisOrigin(c)) {
      return html(
        c,
        MessagePage({
          title: "Request refused",
          message: "This request comes from another site and was refused.",
        }),
        403,
      );
    }
    return await formLimit(c, async () => {
      await originCheck(c, async () => {
        const session = c.get("session");
        const type = c.req.header("content-type") ?? "";
        let token = "";
        if (
          type.startsWith("application/x-www-form-urlencoded") ||
          type.startsWith("multipart/form-data")
        ) {
          let body: Record<string, unknown>;
          try {
            body = await c.req.parseBody();
          } catch {
            c.res = html(
              c,
              MessagePage({ title: "Bad request", message: "The console could not read this form." }),
              400,
            );
            return;
          }
          token = typeof body._csrf === "string" ? body._csrf : "";
        } else {
          token = c.req.header("x-csrf-token") ?? "";
        }
        if (!session || !token || !timingSafeEqual(token, session.csrf)) {
          c.res = html(
            c,
            MessagePage({
              title: "Request refused",
              message: "The form's security token is missing or out of date. Go back, reload the page and try again.",
            }),
            403,
          );
          return;
        }
        // Counted once the post is the session's own: refused forgeries spend none of its allowance.
        const limited = await formsLimit(c, deps);
        if (limited) {
          c.res = limited;
          return;
        }
        await next();
      });
    });
  });

  app.onError((err, c) => {
    if (err instanceof Response) return err;
    const status = (err as { status?: number }).status;
    if (status === 403) {
      return html(
        c,
        MessagePage({
          title: "Request refused",
          message: "This request comes from another site and was refused.",
        }),
        403,
      );
    }
    if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
      return html(
        c,
        MessagePage({ title: "Bad request", message: "The console could not read this request." }),
        400,
      );
    }
    // The path as the client sent it (its line breaks encoded again, as Hono decodes them): it forges no log lines.
    // deno-lint-ignore no-control-regex
    const path = c.req.path.slice(0, 300).replace(/[\u0000-\u001f\u007f]/g, encodeURIComponent);
    console.error(`Console error on ${c.req.method} ${path}: ${describeError(err)}`);
    return html(
      c,
      MessagePage({
        title: "Something went wrong",
        message: "The console could not complete this request.",
      }),
      500,
    );
  });
}
