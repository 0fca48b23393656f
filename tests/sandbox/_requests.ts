// Requests any HTTP client may send the sandbox, as fast-check arbitraries:
// each route's well-formed request with fields dropped, repeated or replaced
// by anything (markup, control characters, lone surrogates, 100 KB, malformed
// percent escapes), wrong content types, invalid JSON, bytes that are not
// UTF-8, any method, any Host. Live values (tokens, codes, secrets, ids) are
// written `⟦name⟧` and filled in when the request is sent, so that a request
// reaches past the first check as often as it stops there.

import fc from "fast-check";
import { jsonish, L, value } from "./_values.ts";

type Pairs = [string, string][];
/** A body as sent: form fields, JSON, text or bytes (the content type is chosen apart). */
export type Body =
  | { form: Pairs }
  | { multipart: Pairs }
  | { json: unknown }
  | { text: string }
  | { bytes: Uint8Array };
/** One request, before its live values are filled in. */
export interface Attack {
  method: string;
  /** The path under the sandbox, such as `/oauth2/token`. */
  path: string;
  /** Query fields, or a raw query string (malformed escapes kept). */
  query: Pairs | string;
  authorization?: { basic: [string, string] } | { raw: string };
  contentType?: string;
  origin?: string;
  host?: string;
  body?: Body;
}

/** A template's fields: as they are, one replaced, one dropped, more (repeats included) added, or all of these. */
function mutated(template: Pairs, names: string[]): fc.Arbitrary<Pairs> {
  const copy = (): Pairs => template.map(([name, v]) => [name, v]);
  const extra = fc.array(fc.tuple(fc.constantFrom(...names, ...template.map(([n]) => n)), value), {
    minLength: 1,
    maxLength: 3,
  });
  const replaced = fc.tuple(fc.nat(), value).map(([i, v]) => {
    const pairs = copy();
    pairs[i % pairs.length][1] = v;
    return pairs;
  });
  const dropped = fc.nat().map((i) => copy().filter((_, j) => j !== i % template.length));
  const added = extra.map((more) => [...copy(), ...more]);
  const mixed = fc.tuple(
    fc.subarray(template.map((_, i) => i), { minLength: Math.max(0, template.length - 2) }),
    extra,
    fc.tuple(fc.nat(), value),
  ).map(([kept, more, [i, v]]) => {
    const pairs = kept.map((k) => [...template[k]] as [string, string]);
    if (pairs.length > 0) pairs[i % pairs.length][1] = v;
    return [...pairs, ...more];
  });
  return fc.oneof(fc.constant(template), replaced, dropped, added, mixed);
}

const AUTHORIZE: Pairs = [
  ["response_type", "code"],
  ["client_id", L("communityId")],
  ["redirect_uri", L("communityRedirect")],
  ["code_challenge", L("challenge")],
  ["code_challenge_method", "S256"],
  ["state", "s-1"],
];
const CODE_GRANT: Pairs = [
  ["grant_type", "authorization_code"],
  ["code", L("code")],
  ["redirect_uri", L("communityRedirect")],
  ["code_verifier", L("verifier")],
];
const REFRESH_GRANT: Pairs = [["grant_type", "refresh_token"], ["refresh_token", L("refresh")], [
  "client_id",
  L("communityId"),
]];
const OAUTH_NAMES = [
  "grant_type",
  "code",
  "refresh_token",
  "redirect_uri",
  "client_id",
  "client_secret",
  "code_verifier",
  "state",
  "scope",
  "decision",
];

const FORM = "application/x-www-form-urlencoded";
const JSON_TYPE = "application/json";
const contentType = (right: string): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(right) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        FORM,
        JSON_TYPE,
        "multipart/form-data; boundary=zz",
        "multipart/form-data",
        "text/plain",
        "APPLICATION/X-WWW-FORM-URLENCODED; charset=iso-8859-1",
        "application/json; charset=utf-16",
        "application/x-www-form-urlencoded-but-not",
        "",
      ),
    },
    { weight: 1, arbitrary: value },
  );
/** A body: mostly the given one, else another kind altogether. */
const bodyOr = (right: fc.Arbitrary<Body>): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 6, arbitrary: right },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(fc.constantFrom(...OAUTH_NAMES), value), { maxLength: 4 }).map((multipart) => ({
        multipart,
      })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("{", "[1,", '{"events":', "null", "\uFEFF{}", "").map((text) => ({ text })),
    },
    { weight: 1, arbitrary: jsonish.map((json) => ({ json })) },
  );
const clientAuth = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ basic: [L("communityId"), L("communitySecret")] as [string, string] }) },
  { weight: 1, arbitrary: fc.constant({ basic: [L("consoleId"), L("consoleSecret")] as [string, string] }) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(L("communityId"), L("consoleId")), value).map((basic) => ({ basic })),
  },
  { weight: 2, arbitrary: fc.tuple(value, value).map((basic) => ({ basic })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(undefined, { raw: `Bearer ${L("access")}` }, { raw: "Basic" }, { raw: "Basic ###" }),
  },
  { weight: 1, arbitrary: value.map((raw) => ({ raw })) },
);
const bearer = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ raw: `Bearer ${L("access")}` }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(undefined, { raw: `bearer  ${L("access")} ` }, { raw: `Bearer ${L("refresh")}` }),
  },
  { weight: 1, arbitrary: value.map((raw) => ({ raw: `Bearer ${raw}` })) },
  { weight: 1, arbitrary: value.map((raw) => ({ raw })) },
);
const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constant(L("hookId")) },
  { weight: 2, arbitrary: value },
  { weight: 1, arbitrary: fc.constantFrom("1000", "999999999999999", "1e3", "0x3e9") },
);
const query = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(
      fc.tuple(fc.constantFrom("startIndex", "count", "triggered", "failed", ...OAUTH_NAMES), value),
      { maxLength: 3 },
    ),
  },
  { weight: 1, arbitrary: value },
);
const hookBody = fc.tuple(
  fc.constantFrom(
    { events: ["user_account"], callback: L("callback") },
    { events: ["document", "file"], object: L("place"), callback: L("callback") },
    { events: "discussion", object: L("place"), callback: L("callback"), enabled: false },
  ),
  fc.oneof(
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 2,
      arbitrary: fc.record({ events: jsonish, object: jsonish, callback: jsonish, enabled: jsonish }, {
        requiredKeys: [],
      }),
    },
  ),
).map(([base, changes]): Body => ({ json: { ...base, ...changes } }));

/** What a request to one route looks like; the rest of `Attack` is filled in by `attack`. */
const routes: fc.Arbitrary<Omit<Attack, "host" | "origin">> = fc.oneof(
  mutated(AUTHORIZE, OAUTH_NAMES).map((q) => ({ method: "GET", path: "/oauth2/authorize", query: q })),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/oauth2/authorize"),
    query: fc.constant([] as Pairs),
    contentType: contentType(FORM),
    body: bodyOr(mutated([...AUTHORIZE, ["decision", "approve"]], OAUTH_NAMES).map((form) => ({ form }))),
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/oauth2/token"),
    query: fc.constant([] as Pairs),
    authorization: clientAuth,
    contentType: contentType(FORM),
    body: bodyOr(
      fc.oneof(mutated(CODE_GRANT, OAUTH_NAMES), mutated(REFRESH_GRANT, OAUTH_NAMES)).map((form) => ({ form })),
    ),
  }),
  fc.record({
    method: fc.constantFrom("GET", "POST"),
    path: fc.constant("/oauth2/userinfo"),
    query,
    authorization: bearer,
  }),
  fc.record({ method: fc.constant("GET"), path: fc.constant("/api/core/v3/webhooks"), query, authorization: bearer }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/api/core/v3/webhooks"),
    query: fc.constant([] as Pairs),
    authorization: bearer,
    contentType: contentType(JSON_TYPE),
    body: bodyOr(hookBody),
  }),
  fc.record({
    method: fc.constantFrom("GET", "PUT", "DELETE"),
    path: segment.map((id) => `/api/core/v3/webhooks/{${id}}`),
    query: fc.constant([] as Pairs),
    authorization: bearer,
    contentType: contentType(JSON_TYPE),
    body: bodyOr(hookBody),
  }),
  fc.record({
    method: fc.constant("GET"),
    path: segment.map((id) => `/api/core/v3/places/{${id}}`),
    query,
    authorization: bearer,
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/trigger"),
    query: fc.constant([] as Pairs),
    contentType: contentType(JSON_TYPE),
    body: bodyOr(
      fc.record({ webhookId: jsonish, event: jsonish, verb: jsonish }, { requiredKeys: [] }).map((json) => ({ json })),
    ),
  }),
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant("/redeliver"),
    query: fc.constant([] as Pairs),
    contentType: contentType(JSON_TYPE),
    body: bodyOr(
      fc.record({
        webhookId: fc.oneof(fc.constant(L("hookId")), jsonish),
        timestamp: fc.oneof(fc.constant(L("#stamp")), jsonish),
      }, {
        requiredKeys: [],
      }).map((json) => ({ json })),
    ),
  }),
  fc.record({ method: fc.constant("GET"), path: fc.constantFrom("", "/"), query }),
  fc.record({
    method: fc.oneof(
      fc.constantFrom("PATCH", "HEAD", "OPTIONS", "TRACE", "FOO", "M-SEARCH"),
      fc.stringMatching(/^[A-Z]{1,12}$/),
    ),
    path: fc.oneof(
      fc.constantFrom("/oauth2/token", "/oauth2/authorize", "/api/core/v3/webhooks", "/trigger", "/redeliver", "/"),
      segment.map((s) => `/api/{${s}}`),
      value.map((s) => `/{${s}}`),
    ),
    query,
    authorization: fc.oneof(bearer, clientAuth),
    contentType: contentType(JSON_TYPE),
    body: bodyOr(hookBody),
  }),
);

/** Any request to the sandbox: a route's request, from this origin or another, to this Host or another. */
export const attack: fc.Arbitrary<Attack> = fc.tuple(
  routes,
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(L("origin")) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, "null", "http://evil.example") },
  ),
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("evil.example", "a".repeat(200), `${"a.".repeat(28_000)}b:1`, "[::1]:1", ""),
    },
  ),
).map(([route, origin, host]) => ({ ...route, origin, host }));
