// The console's sign-in and sessions: pages without a session redirect to
// sign-in, what needs none, the session cookie, a callback without its pending
// cookie, sign-out, expiry, and localhost sent to the 127.0.0.1 origin.

import assert from "node:assert/strict";
import { Client, csrfOf, parse, startConsole, withSignedIn } from "./_helpers.ts";

Deno.test("pages without a session redirect to sign-in, keeping the path", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    for (const path of ["/", "/communities", "/webhooks?tenant=x", "/deliveries"]) {
      const res = await client.fetch(path);
      await res.body?.cancel();
      assert.equal(res.status, 302, path);
      const location = new URL(res.headers.get("location")!, t.origin);
      assert.equal(location.pathname, "/signin");
      assert.equal(location.searchParams.get("returnTo"), path);
    }
  } finally {
    await t.close();
  }
});

Deno.test("sign-in, /healthz, the sandbox and the receiver need no session", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    assert.equal((await client.fetch("/signin")).status, 200);
    assert.equal((await client.fetch("/healthz")).status, 200);
    const sandbox = await client.fetch("/sandbox");
    assert.equal(sandbox.status, 200);
    await sandbox.body?.cancel();
    const hook = await client.fetch("/hooks/unknown", {
      method: "POST",
      body: "[]",
      headers: { "content-type": "application/json" },
    });
    // The receiver itself answers (no sign-in redirect): an unsigned postback is refused before anything else.
    assert.equal(hook.status, 401);
    await hook.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("signing in through the sandbox sets an HttpOnly SameSite=Lax session cookie", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    const raw = client.setCookies.find((c) => c.startsWith("cw_session="))!;
    assert.match(raw, /HttpOnly/i);
    assert.match(raw, /SameSite=Lax/i);
    assert.doesNotMatch(raw, /Secure/i); // plain http here
    const html = await client.text("/", 200);
    const page = parse(html);
    try {
      assert.equal(
        page.document.querySelector(".user")?.textContent,
        "Sandbox User",
      );
      assert.equal(page.document.querySelector("h1")?.textContent, "Welcome");
    } finally {
      page.close();
    }
    // The session id never shows in the page.
    assert.ok(!html.includes(client.cookies.get("cw_session")!));
  });
});

Deno.test("a callback without the matching pending cookie does not sign in", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    const res = await client.fetch("/auth/callback?code=x&state=y");
    await res.body?.cancel();
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), "/signin?error=1");
    assert.ok(!client.cookies.has("cw_session"));
  } finally {
    await t.close();
  }
});

Deno.test("sign-out ends the session", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    const oldCookie = client.cookies.get("cw_session")!;
    const csrf = csrfOf(await client.text("/", 200));
    const res = await client.post("/signout", { _csrf: csrf });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin?notice=signedout");
    assert.ok(!client.cookies.has("cw_session"));
    // The old id no longer works either.
    client.cookies.set("cw_session", oldCookie);
    const again = await client.fetch("/communities");
    await again.body?.cancel();
    assert.equal(again.status, 302);
  });
});

Deno.test("sessions expire", async () => {
  await withSignedIn({ sessionTtlMs: 1000, connect: false }, async ({ client }) => {
    assert.equal((await client.fetch("/")).status, 200);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await client.fetch("/");
    await res.body?.cancel();
    assert.equal(res.status, 302);
  });
});

Deno.test("a browser on localhost is sent to the console's 127.0.0.1 origin, so sign-in cookies stay on one host", async () => {
  const t = await startConsole();
  try {
    const port = new URL(t.origin).port;
    const res = await fetch(`http://localhost:${port}/signin?returnTo=%2Fwebhooks`, { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), `${t.origin}/signin?returnTo=%2Fwebhooks`);
    // The receiver and other non-GET requests are served where they arrive.
    const post = await fetch(`http://localhost:${port}/hooks/nope`, { method: "POST", body: "[]" });
    assert.equal(post.status, 401); // the receiver's own answer to an unsigned postback, not a redirect
    await post.body?.cancel();
  } finally {
    await t.close();
  }
});
