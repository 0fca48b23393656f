// The sandbox under anything an HTTP client may send (fast-check): every
// route's request with fields dropped, repeated or replaced by anything,
// wrong content types, invalid JSON, bytes that are not UTF-8, any method,
// another Origin or Host. Whatever comes, the sandbox answers without a 5xx;
// a refusal is a 4xx whose body says what is wrong in the shape a client of
// that route reads (the platform's error JSON, RFC 6749's, the 400 page);
// no page shows the input's markup unescaped; no answer and no log line holds
// a secret (client secret, token, code) the request did not carry itself,
// and no log line is forged; a refused request leaves the stored state as it
// was; and the sandbox serves a legitimate client afterwards.

import assert from "node:assert/strict";
import fc from "fast-check";
import { ANTI_HIJACKING_PREFIX } from "../../sandbox/mod.ts";
import { build, HEAD_LIMIT, type Live } from "./_build.ts";
import { type Attack, attack } from "./_requests.ts";
import { MARK } from "./_values.ts";
import {
  approve,
  captureConsole,
  COMMUNITY,
  dumpKv,
  pkcePair,
  type RawAnswer,
  rawRequest,
  withServed,
} from "./_served.ts";

const AUTHORIZE_READS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
];
const TOKEN_READS = [
  "grant_type",
  "code",
  "redirect_uri",
  "code_verifier",
  "refresh_token",
  "client_id",
  "client_secret",
  "scope",
];

/** The parameter an OAuth request repeats, of those its endpoint reads (RFC 6749 3.1, 3.2: each is sent once). */
function repeatedParameter(a: Attack): string | undefined {
  const reads = a.path === "/oauth2/token"
    ? TOKEN_READS
    : a.path === "/oauth2/authorize"
    ? [...AUTHORIZE_READS, ...(a.method === "POST" ? ["decision"] : [])]
    : [];
  const pairs = a.method === "GET"
    ? (Array.isArray(a.query) ? a.query : [])
    : a.body && ("form" in a.body ? a.body.form : "multipart" in a.body ? a.body.multipart : []);
  const names = (pairs ?? []).map(([name]) => name).filter((name) => reads.includes(name));
  return names.find((name, i) => names.indexOf(name) !== i);
}

/** The `Allow` of each route outside the REST API (whose refusals all carry their status in the body). */
const ROUTE_METHODS: Record<string, string> = {
  "/oauth2/token": "POST",
  "/oauth2/userinfo": "GET, HEAD, POST",
  "/oauth2/authorize": "GET, HEAD, POST",
  "/trigger": "POST",
  "/redeliver": "POST",
};

const OAUTH_ERRORS = ["invalid_request", "invalid_client", "invalid_grant", "unsupported_grant_type", "invalid_scope"];

/** Asserts that a refusal says what is wrong in the shape the route's clients read. */
function assertRefusal(method: string, target: string, answer: RawAnswer): void {
  const what = `${method} ${target.slice(0, 120)} → ${answer.status} ${answer.body.slice(0, 300)}`;
  const type = answer.headers.get("content-type") ?? "";
  // Refused by the HTTP server before the sandbox saw it (a Host it cannot parse, a header too large).
  if (type === "" && answer.body === "" && [400, 413, 414, 431].includes(answer.status)) return;
  if (method === "HEAD") return;
  const path = target.replace(/^\/sandbox/, "").replace(/\?.*$/s, "");
  const known = (route: string, ...methods: string[]) => path === route && methods.includes(method);
  if (path.startsWith("/api/")) {
    assert.ok(answer.body.startsWith(ANTI_HIJACKING_PREFIX), `no anti-hijacking line: ${what}`);
    const { error } = JSON.parse(answer.body.slice(ANTI_HIJACKING_PREFIX.length));
    assert.equal(error.status, answer.status, what);
    assert.ok(typeof error.message === "string" && error.message.length > 0, what);
  } else if (known("/oauth2/token", "POST")) {
    const body = JSON.parse(answer.body);
    assert.ok(OAUTH_ERRORS.includes(body.error), `not an RFC 6749 error: ${what}`);
    assert.ok(typeof body.error_description === "string" && body.error_description.length > 0, what);
    if (answer.status === 401) assert.match(answer.headers.get("www-authenticate") ?? "", /^Basic /, what);
  } else if (known("/oauth2/userinfo", "GET", "POST")) {
    assert.equal(JSON.parse(answer.body).error, "invalid_token", what);
    assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer /, what);
  } else if (known("/oauth2/authorize", "GET", "POST")) {
    assert.match(type, /^text\/html/, `not the error page: ${what}`);
    assert.match(answer.body, /id="error">[^<]+</, `the page names nothing: ${what}`);
  } else if (known("/trigger", "POST") || known("/redeliver", "POST")) {
    const message = /json/.test(type) ? JSON.parse(answer.body).error : answer.body;
    assert.ok(typeof message === "string" && message.length > 0, what);
  } else if (path in ROUTE_METHODS) {
    // A method the route does not serve: 405, what it serves in Allow, in the route's shape.
    assert.equal(answer.status, 405, what);
    assert.equal(answer.headers.get("allow"), ROUTE_METHODS[path], what);
    if (path === "/oauth2/authorize") {
      assert.match(answer.body, /id="error">The method [^<]+ is not allowed on [^<]+</, `not the error page: ${what}`);
    } else {
      const body = JSON.parse(answer.body);
      const message = path.startsWith("/oauth2/") ? body.error_description : body.error;
      assert.match(message, /^The method .+ is not allowed on /, what);
      if (path.startsWith("/oauth2/")) assert.equal(body.error, "invalid_request", what);
    }
  } else {
    assert.equal(answer.status, 404, what);
    assert.ok(answer.body.length > 0, what);
  }
}

Deno.test("sandbox: any request to any route gets no 5xx, a refusal naming what is wrong, no markup or secret it did not send, no change to stored state (property)", async () => {
  await withServed(async (served) => {
    const { kv, sandbox, port } = served;
    const tokens = await sandbox.issueTokens();
    const anchor = await sandbox.createHook(served.origin, { events: ["user_account"], callback: served.callback });
    const { delivered } = await sandbox.trigger({ webhookId: String(anchor.id) });
    const { challenge } = await pkcePair();
    const first = await approve(served);
    const live: Live = {
      communityId: COMMUNITY.clientId,
      communitySecret: COMMUNITY.clientSecret,
      consoleId: "sandbox-console",
      consoleSecret: served.consoleSecret,
      communityRedirect: served.communityRedirect,
      consoleRedirect: served.consoleRedirect,
      callback: served.callback,
      place: sandbox.placeFor(served.origin),
      access: tokens.accessToken,
      refresh: tokens.refreshToken,
      code: first.code,
      verifier: first.verifier,
      challenge,
      hookId: String(anchor.id),
      origin: served.origin,
      "#stamp": delivered[0].timestamp!,
    };
    const secrets = new Set([
      COMMUNITY.clientSecret,
      served.consoleSecret,
      tokens.accessToken,
      tokens.refreshToken,
      first.code,
    ]);
    const codeKey = async (code: string) => JSON.stringify(["sandbox", "code", await sha256Hex(code)]);

    await captureConsole(async (logged) => {
      await fc.assert(
        fc.asyncProperty(attack, async (a) => {
          const request = build(a, live);
          const before = await dumpKv(kv);
          const answer = await rawRequest(port, request);
          const what = `${request.method} ${request.target.slice(0, 120)} → ${answer.status}`;
          if (answer.status === 0) {
            // Deno's HTTP server drops, unanswered, a head over 64 KiB or a header value holding a control character.
            const invalid = request.headers.some(([, v]) =>
              [...v].some((ch) => ch < " " && ch !== "\t" || ch === "\x7f")
            );
            assert.ok(
              invalid || request.headBytes > HEAD_LIMIT - 4096,
              `${what}: the connection closed without an answer`,
            );
            return;
          }
          assert.ok(answer.status < 500, `${what}: ${answer.body.slice(0, 300)}`);
          const type = answer.headers.get("content-type") ?? "";
          if (!/json|^text\/plain/.test(type)) {
            assert.ok(
              !answer.body.includes(MARK) && !answer.body.includes("<x-evil a="),
              `${what} shows markup unescaped`,
            );
          }
          for (const secret of secrets) {
            if (request.carried.includes(secret)) continue;
            assert.ok(!(answer.head + answer.body).includes(secret), `${what} holds a secret it was not sent`);
          }
          for (const line of logged.join("\n").split(/\r\n|\r|\n/)) {
            assert.ok(!line.startsWith("FORGED"), `${what} forged a log line`);
            for (const secret of secrets) assert.ok(!line.includes(secret), `${what} logged a secret`);
          }
          const repeated = repeatedParameter(a);
          if (repeated !== undefined) {
            assert.ok(![200, 303].includes(answer.status), `${what}: granted although it repeats ${repeated}`);
          }
          const usedCode = request.carried.includes(live.code);
          if (answer.status >= 400) {
            assertRefusal(request.method, request.target, answer);
            // A refused exchange of the live code may use it up (as a stolen code is); nothing else may change.
            const burnt = usedCode ? `[${await codeKey(live.code)},` : "\0";
            const other = (dump: string[]) => JSON.stringify(dump.filter((entry) => !entry.startsWith(burnt)));
            const after = await dumpKv(kv);
            assert.ok(
              other(after) === other(before),
              `${what} changed stored state: ${after.filter((e) => !before.includes(e))}`,
            );
          }
          // Keep the live values live for the next run.
          if (request.target === "/sandbox/oauth2/token" && answer.status === 200) {
            const issued = JSON.parse(answer.body);
            [live.access, live.refresh] = [issued.access_token, issued.refresh_token];
            secrets.add(live.access).add(live.refresh);
          }
          const location = answer.headers.get("location");
          const issuedCode = location && new URL(location, served.origin).searchParams.get("code");
          if (issuedCode) secrets.add(issuedCode);
          if (usedCode) {
            const next = await approve(served);
            [live.code, live.verifier] = [next.code, next.verifier];
            secrets.add(next.code);
          }
          if (request.target === "/sandbox/trigger" && answer.status === 200 && /json/.test(type)) {
            live["#stamp"] = JSON.parse(answer.body).delivered[0]?.timestamp ?? live["#stamp"];
          }
          if (!(await sandbox.listHooks()).some((hook) => hook.id === live.hookId)) {
            const again = await sandbox.createHook(served.origin, {
              events: ["user_account"],
              callback: served.callback,
            });
            live.hookId = String(again.id);
          }
        }),
        { numRuns: 1500 },
      );
    });

    // Still serving: its index, and a client's refresh then API call.
    const index = await fetch(`${served.base}/`);
    assert.equal(index.status, 200);
    await index.body?.cancel();
    const renewed = await fetch(`${served.base}/oauth2/token`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${COMMUNITY.clientId}:${COMMUNITY.clientSecret}`)}` },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: live.refresh }),
    });
    assert.equal(renewed.status, 200, await renewed.clone().text());
    const { access_token } = await renewed.json();
    const list = await fetch(`${served.base}/api/core/v3/webhooks`, {
      headers: { Authorization: `Bearer ${access_token}` },
    });
    assert.equal(list.status, 200);
    await list.body?.cancel();
  });
});

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
