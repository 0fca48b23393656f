// Sessions at sign-in: a fresh id each time with the old session ended, and
// `__Host-` prefixed cookies when the console is served over https (issue 13
// item 4).

import assert from "node:assert/strict";
import { createApp } from "../../console/app.ts";
import { oauthStateKey } from "../../console/lib/kv_keys.ts";
import { SessionStore } from "../../console/lib/session.ts";
import { Client, signIn, withSignedIn } from "./_helpers.ts";

Deno.test("signing in again gives a fresh session id and ends the session held before", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const before = client.cookies.get("cw_session")!;
    await signIn(t.origin, client);
    const after = client.cookies.get("cw_session")!;
    assert.notEqual(after, before);
    assert.equal((await client.fetch("/communities")).status, 200);
    const stale = new Client(t.origin);
    stale.cookies.set("cw_session", before);
    const res = await stale.fetch("/communities");
    await res.body?.cancel();
    assert.equal(res.status, 302, "the old session id no longer works");
  });
});

Deno.test("over https the console's cookies carry the __Host- prefix, and the unprefixed name is ignored", async () => {
  const kv = await Deno.openKv(":memory:");
  const origin = "https://console.example";
  // The browser and the console's own calls to its sandbox reach the app in-process.
  let handler: (r: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const inProcess: typeof fetch = (input, init) => Promise.resolve(handler(new Request(input, init)));
  const app = createApp({ kv, publicUrl: origin, buildAssets: false, fetch: inProcess });
  try {
    await app.ready;
    handler = app.fetch;
    const client = await signIn(origin, new Client(origin, inProcess), "__Host-cw_session");
    const oauth = client.setCookies.find((c) => c.startsWith("__Host-cw_oauth="));
    const session = client.setCookies.find((c) => c.startsWith("__Host-cw_session="));
    for (const raw of [oauth, session]) {
      assert.ok(raw, "the cookie is prefixed");
      assert.match(raw, /; Secure/i);
      assert.match(raw, /; Path=\//i);
      assert.doesNotMatch(raw, /; Domain=/i);
    }
    assert.equal((await client.fetch("/communities")).status, 200);
    const plain = new Client(origin, inProcess);
    plain.cookies.set("cw_session", client.cookies.get("__Host-cw_session")!);
    const res = await plain.fetch("/communities");
    await res.body?.cancel();
    assert.equal(res.status, 302, "a cookie without the prefix is not a session over https");
  } finally {
    await app.close();
    kv.close();
  }
});

Deno.test("no page allows inline scripts: the CSP has no 'unsafe-inline' for scripts, and pages hold none", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    for (const path of ["/signin", "/", "/communities", "/webhooks", "/webhooks/new", "/deliveries", "/sandbox"]) {
      const res = await client.fetch(path);
      const html = await res.text();
      assert.equal(res.status, 200, path);
      const csp = res.headers.get("content-security-policy") ?? "";
      const directives = new Map(
        csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]),
      );
      const scripts = directives.get("script-src") ?? directives.get("default-src");
      assert.ok(scripts, `${path}: the CSP governs scripts`);
      assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'"), `${path}: ${csp}`);
      for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
        assert.ok(/\ssrc=/.test(tag) || /type="application\/json"/.test(tag), `${path}: inline script ${tag}`);
      }
    }
  });
});

Deno.test("a pending authorization is taken once, and not after its ten minutes even if KV has not dropped it yet", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new SessionStore(kv, 60_000);
    const pending = { kind: "signin" as const, codeVerifier: "v", state: "s", returnTo: "/" };
    const id = await store.savePending(pending);
    assert.deepEqual(await store.takePending(id), pending);
    assert.equal(await store.takePending(id), null, "used once");
    const old = await store.savePending(pending);
    const key = oauthStateKey(old);
    const entry = await kv.get<Record<string, unknown>>(key);
    await kv.set(key, { ...entry.value, savedAt: Date.now() - 10 * 60_000 - 1 });
    assert.equal(await store.takePending(old), null, "older than ten minutes");
    assert.equal((await kv.get(key)).value, null, "and gone");
  } finally {
    kv.close();
  }
});
