// The console's whole HTTP surface for surface_fuzz_test.ts: every route and method it answers, the hostile parts a
// client can send (raw path segments and query strings no browser would encode so, cookies, content types, form
// bodies), and what every answer must hold (no 5xx, no stack or internal message, no secret).

import assert from "node:assert/strict";
import fc from "fast-check";

/** Every route the console answers, `{hook}`, `{tenant}`, `{delivery}` and `{dest}` filled in, `{any}` fuzzed. */
export const ROUTES: { path: string; methods: string[] }[] = [
  { path: "/", methods: ["GET"] },
  { path: "/signin", methods: ["GET"] },
  { path: "/auth/login", methods: ["GET"] },
  { path: "/auth/callback", methods: ["GET"] },
  { path: "/auth/community/callback", methods: ["GET"] },
  { path: "/session", methods: ["GET"] },
  { path: "/signout", methods: ["POST"] },
  { path: "/healthz", methods: ["GET"] },
  { path: "/readyz", methods: ["GET"] },
  { path: "/metrics", methods: ["GET"] },
  { path: "/events", methods: ["GET"] },
  { path: "/communities", methods: ["GET", "POST"] },
  { path: "/communities/new", methods: ["GET"] },
  { path: "/communities/{tenant}", methods: ["GET", "POST"] },
  { path: "/communities/{any}", methods: ["GET", "POST"] },
  { path: "/communities/{tenant}/connect", methods: ["GET"] },
  { path: "/communities/{tenant}/reconcile", methods: ["GET", "POST"] },
  { path: "/communities/{tenant}/remove", methods: ["GET", "POST"] },
  { path: "/communities/{tenant}/revoke-previous-secret", methods: ["GET", "POST"] },
  { path: "/webhooks", methods: ["GET", "POST"] },
  { path: "/webhooks/new", methods: ["GET"] },
  { path: "/webhooks/health.json", methods: ["GET"] },
  { path: "/webhooks/{hook}", methods: ["GET"] },
  { path: "/webhooks/{any}", methods: ["GET"] },
  { path: "/webhooks/{hook}/health.json", methods: ["GET"] },
  { path: "/webhooks/{hook}/label", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/events", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/enabled", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/test", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/unregister", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/forget", methods: ["POST"] },
  { path: "/webhooks/{any}/unregister", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/forward", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/forward/{dest}/enabled", methods: ["GET", "POST"] },
  { path: "/webhooks/{hook}/forward/{dest}/remove", methods: ["POST"] },
  { path: "/webhooks/{hook}/forward/{any}/remove", methods: ["POST"] },
  { path: "/webhooks/{hook}/forward/redeliver/{any}", methods: ["POST"] },
  { path: "/deliveries", methods: ["GET"] },
  { path: "/deliveries.json", methods: ["GET"] },
  { path: "/deliveries/stats.json", methods: ["GET"] },
  { path: "/deliveries/{delivery}", methods: ["GET"] },
  { path: "/deliveries/{any}", methods: ["GET"] },
  { path: "/deliveries/{delivery}/replay", methods: ["POST"] },
  { path: "/deliveries/{delivery}/redeliver", methods: ["GET", "POST"] },
  { path: "/static/style.css", methods: ["GET"] },
  { path: "/static/{any}", methods: ["GET"] },
  { path: "/static/_build/{any}", methods: ["GET"] },
  { path: "/hooks/{any}", methods: ["GET"] },
  { path: "/sandbox", methods: ["GET"] },
  { path: "/sandbox/trigger", methods: ["POST"] },
  { path: "/sandbox/oauth2/authorize", methods: ["GET"] },
  { path: "/{any}", methods: ["GET"] },
];

/** Routes whose answer, given the right token, removes what the other runs need (the session, the hook, ...). */
export const DESTRUCTIVE = /\/(signout|remove|unregister|forget|revoke-previous-secret)$/;

/** A path part or query value as raw as a client may send it: broken UTF-8, a lone surrogate, traversal, size. */
export const raw: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "%00",
    "%FF",
    "%ED%A0%80",
    "%C0%AF",
    "..",
    "%2E%2E",
    "%2F",
    "a%2Fb",
    "a%20b",
    "%F0%9F%98%80",
    "%",
    "%zz",
    "%0D%0AX-Injected:%201",
    "1e309",
    "-1",
    "9007199254740993",
    "NaN",
    "%3Cx-evil%3E",
    "x".repeat(10_000),
  ),
  fc.string({ unit: "grapheme", maxLength: 12 }).map(encodeURIComponent),
);

const KEYS = ["hook", "status", "from", "to", "before", "after", "cursor", "notice", "error", "returnTo", "reveal"];
/** A query string: known keys, repeated or not, with raw values; or nothing. */
export const query: fc.Arbitrary<string> = fc.array(
  fc.tuple(fc.oneof(fc.constantFrom(...KEYS), raw), raw),
  { maxLength: 4 },
).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&"));

/** Methods beyond a route's own, which must be answered as well (404, 405 or the like), never 5xx. */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"];

/** The cookie header: signed out, the session alone, beside junk or a second session cookie, or junk alone. */
export type CookieKind = "none" | "session" | "junk-first" | "junk-after" | "junk";
export const cookieKind: fc.Arbitrary<CookieKind> = fc.constantFrom(
  "none",
  "session",
  "junk-first",
  "junk-after",
  "junk",
);

/** The cookie header for `kind` and the session cookie `session` (`name=value`). */
export function cookieHeader(kind: CookieKind, session: string, junk: string): string | undefined {
  const other = `cw_session=${junk}`;
  return {
    none: undefined,
    session,
    "junk-first": `${other}; ${session}`,
    "junk-after": `${session}; ${other}`,
    junk: `${other}; cw_oauth=${junk}`,
  }[kind];
}

/** Which CSRF token a post carries. */
export type TokenKind = "right" | "wrong" | "missing" | "twice";
export const tokenKind: fc.Arbitrary<TokenKind> = fc.constantFrom("right", "wrong", "missing", "twice");

/** Form fields a hostile client may send: missing, repeated, huge. */
export const fields: fc.Arbitrary<[string, string][]> = fc.array(
  fc.tuple(
    fc.constantFrom(
      "name",
      "tenantId",
      "baseUrl",
      "url",
      "events",
      "object",
      "label",
      "enabled",
      "formToken",
      "confirm",
    ),
    fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom("yes", "1", "0", "", "x".repeat(120_000), "document", "https://app.example/in"),
    ),
  ),
  { maxLength: 5 },
);

/** How the body is labelled: what it is, or a lie. */
export const contentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=not-in-the-body",
  "application/json",
  "text/plain",
  undefined,
);

/** What no answer may hold: a stack frame, an uncaught error's name, the KV's own words. */
const INTERNAL =
  /\n\s+at \S|\b(?:TypeError|RangeError|SyntaxError|ReferenceError)\b|Uncaught|Value too large|key too large/;

/** Asserts what every answer holds: no 5xx (but a platform's refusal passed on), nothing internal, no secret. */
export function assertSafe(what: string, res: Response, body: string, secrets: string[]): void {
  assert.ok(
    res.status < 500 || res.status === 502 || res.status === 503,
    `${what}: ${res.status} ${body.slice(0, 300)}`,
  );
  assert.doesNotMatch(body, INTERNAL, `${what}: ${res.status} shows an internal message`);
  const headers = [...res.headers].filter(([name]) => name !== "set-cookie").map(([, v]) => v).join("\n");
  for (const secret of secrets) {
    assert.ok(!body.includes(secret) && !headers.includes(secret), `${what}: shows a secret (${secret.length} chars)`);
  }
}
