// The console's whole HTTP surface against a hostile client (fast-check): every route, under every method, signed in
// or out, with cookies beside junk, raw path parts and query strings (broken UTF-8, lone surrogates, traversal, 10,000
// characters), bodies that lie about their type, fields missing, repeated or huge, and the CSRF token right, wrong,
// missing or given twice. Each answer: no 5xx, no stack or internal message, no secret; a state-changing request
// without the right token is refused and leaves the stored data as it was.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay } from "../../webhooks/mod.ts";
import { csrfOf, trigger, withHook } from "./_helpers.ts";
import { addDestination } from "./_forward_forms.ts";
import { captureConsole } from "./_fuzz.ts";
import {
  assertSafe,
  contentType,
  cookieHeader,
  cookieKind,
  DESTRUCTIVE,
  fields,
  METHODS,
  query,
  raw,
  ROUTES,
  tokenKind,
} from "./_surface.ts";

const METRICS_TOKEN = "metrics-token-of-the-surface-test";

/**
 * The stored data as keys and versionstamps, but the session's own record (its last use is kept as it is used) and
 * the delivery log's attempt batches (written in the background, after a test event an earlier run sent).
 */
async function stored(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of kv.list({ prefix: [] })) {
    if (entry.key[0] === "console_session" || entry.key[0] === "console_attempt_batch") continue;
    out.push(`${JSON.stringify(entry.key, (_k, v) => typeof v === "bigint" ? String(v) : v)} ${entry.versionstamp}`);
  }
  return out;
}

Deno.test("every route answers any method, cookie, path part, query and body without a 5xx, an internal message or a secret; unsafe requests without the token change nothing (property)", async () => {
  await withHook(async (t, hook, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
    const [delivery] = (await t.app.deliveries.page({ hookId: hook.id })).values;
    const added = await addDestination(client, hook.id, "https://app.example/in");
    const relay = createRelay(t.kv);
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const sessionId = client.cookies.get("cw_session")!;
    const secrets = [
      sessionId,
      community.clientSecret!,
      community.oauth!.access_token,
      community.oauth!.refresh_token!,
      METRICS_TOKEN,
      ...(await relay.destinations.list()).map(() => /whsec_[A-Za-z0-9+/=]+/.exec(added.html)![0]),
    ];
    await relay.close();
    const csrf = csrfOf(await client.text("/", 200));
    await t.app.deliveries.flush(); // the log's attempts written in the background: before the property looks
    const fill = (path: string, segment: string) =>
      path.replace("{hook}", hook.id).replace("{tenant}", "sandbox-tenant").replace("{delivery}", delivery.id)
        .replace("{dest}", added.id).replace("{any}", segment);
    const route = fc.constantFrom(...ROUTES).chain(({ path, methods }) =>
      fc.tuple(fc.constant(path), fc.oneof(fc.constantFrom(...methods), fc.constantFrom(...METHODS)))
    );
    await captureConsole(async () => {
      await fc.assert(
        fc.asyncProperty(
          route,
          raw,
          query,
          cookieKind,
          tokenKind,
          contentType,
          fields,
          async ([template, method], segment, search, cookie, token, type, form) => {
            const path = fill(template, segment);
            const url = `${t.origin}${path}${search ? `?${search}` : ""}`;
            const unsafe = !["GET", "HEAD", "OPTIONS"].includes(method);
            if (unsafe && token === "right" && cookie !== "none" && cookie !== "junk" && DESTRUCTIVE.test(path)) return;
            const headers = new Headers({ origin: t.origin });
            const cookies = cookieHeader(cookie, `cw_session=${sessionId}`, segment.slice(0, 200));
            if (cookies) headers.set("cookie", cookies);
            if (type) headers.set("content-type", type);
            const body = new URLSearchParams(form);
            if (token === "right" || token === "twice") body.append("_csrf", csrf);
            if (token === "wrong" || token === "twice") body.append("_csrf", "not-the-token");
            // Signed in for sure: the session cookie alone or first (the first of two cookies of a name is the one
            // read). Signed out, a form is kept for after sign-in (docs/console-security.md): stored data changes.
            const signedIn = cookie === "session" || cookie === "junk-after";
            const csrfChecked = !path.startsWith("/hooks/") && !path.startsWith("/sandbox");
            const before = unsafe && signedIn && csrfChecked && token !== "right" ? await stored(t.kv) : null;
            const what = `${method} ${url.slice(0, 200)} (cookie ${cookie}, token ${token}, ${type})`;
            let res: Response;
            try {
              res = await fetch(url, { method, headers, body: unsafe ? body : undefined, redirect: "manual" });
            } catch (err) {
              // A URL the client itself refuses to send (no request made) is not the console's answer.
              if (err instanceof TypeError && /invalid|url/i.test(err.message)) return;
              throw err;
            }
            const text = await res.text();
            assertSafe(what, res, text, secrets);
            if (before) {
              // Refused: 403; 400 for a body that cannot be read as the form it says it is, 413 for one too large.
              assert.ok([400, 403, 413].includes(res.status), `${what}: ${res.status} ${text.slice(0, 200)}`);
              assert.deepEqual(await stored(t.kv), before, `${what} changed the stored data`);
            }
          },
        ),
        { numRuns: 1000 },
      );
    });
  }, { metricsToken: METRICS_TOKEN });
});
