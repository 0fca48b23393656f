// The values an attacker puts in a sandbox request's fields (fast-check):
// markup, line breaks, control characters, lone surrogates, malformed percent
// escapes, numbers of any size, 100 KB, and the sandbox's live values
// (tokens, codes, secrets, ids) written `⟦name⟧`, filled in when sent.

import fc from "fast-check";

/** A value whose markup must never come back unescaped in a page. */
export const MARK = "<x-evil>";
/** A 100 KB value, written short (so that a counterexample stays readable) until it is sent. */
export const HUGE = "h".repeat(100_000);
export const HUGE_MARK = "⟦huge⟧";

/** The names of the live values a request may carry. */
export const LIVE = [
  "communityId",
  "communitySecret",
  "consoleId",
  "consoleSecret",
  "communityRedirect",
  "consoleRedirect",
  "callback",
  "place",
  "access",
  "refresh",
  "code",
  "verifier",
  "challenge",
  "hookId",
  "origin",
] as const;
export type LiveName = (typeof LIVE)[number];
export const L = (name: LiveName | "#stamp"): string => `⟦${name}⟧`;

const known = fc.constantFrom(
  ...LIVE.map(L),
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "code",
  "S256",
  "plain",
  "approve",
  "deny",
  "document",
  "user_account",
  "document,file",
  "jive:created",
  "http://127.0.0.1:1/x",
  `${L("callback")}?token=${L("access")}`,
  `${L("callback")}?${"q".repeat(8_000)}`,
);
const nasty = fc.constantFrom(
  MARK,
  `"'><x-evil a='`,
  "\r\nFORGED log line",
  "",
  " ",
  "%",
  "%00",
  "%E0%A4%A",
  "%ZZ",
  "%FF%FE",
  "0",
  "-1",
  "01001",
  "1e309",
  "9007199254740993",
  "__proto__",
  "constructor",
  "\u0000",
  "\uFEFF",
  "\uD800",
  "a".repeat(4097),
  "1".repeat(20),
);
/** Any string a field may hold. */
export const value: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: known },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 3, arbitrary: nasty },
  { weight: 1, arbitrary: fc.constant(HUGE_MARK) },
);
/** Any JSON value a field of a JSON body may hold. */
export const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: value },
  { weight: 1, arbitrary: fc.array(value, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, {}, [], ["user_account"]) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
