import assert from "node:assert/strict";
import { Client, csrfOf, parse, signIn, startConsole } from "./_helpers.ts";

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
    assert.equal(hook.status, 404);
    await hook.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("signing in through the sandbox sets an HttpOnly SameSite=Lax session cookie", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
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
  } finally {
    await t.close();
  }
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
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
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
  } finally {
    await t.close();
  }
});

Deno.test("sessions expire", async () => {
  const t = await startConsole({ sessionTtlMs: 1000 });
  try {
    const client = await signIn(t.origin);
    assert.equal((await client.fetch("/")).status, 200);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await client.fetch("/");
    await res.body?.cancel();
    assert.equal(res.status, 302);
  } finally {
    await t.close();
  }
});

Deno.test("forms without the session's CSRF token or from another origin are refused", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    const csrf = csrfOf(await client.text("/communities/new", 200));
    const fields = {
      name: "Acme",
      tenantId: "acme",
      baseUrl: "https://acme.example",
    };
    const missing = await client.post("/communities", fields);
    assert.equal(missing.status, 403);
    await missing.body?.cancel();
    const wrong = await client.post("/communities", { ...fields, _csrf: "nope" });
    assert.equal(wrong.status, 403);
    await wrong.body?.cancel();
    const foreign = await client.post(
      "/communities",
      { ...fields, _csrf: csrf },
      { origin: "https://evil.example" },
    );
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    assert.equal(
      await t.app.webhooks.communities.findByTenantID("acme"),
      null,
    );
    const ok = await client.post("/communities", { ...fields, _csrf: csrf });
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    assert.equal(
      (await t.app.webhooks.communities.findByTenantID("acme"))?.name,
      "Acme",
    );
  } finally {
    await t.close();
  }
});

Deno.test("pages carry secure headers and a content security policy", async () => {
  const t = await startConsole();
  try {
    const res = await fetch(`${t.origin}/signin`);
    await res.body?.cancel();
    assert.equal(res.headers.get("x-frame-options"), "SAMEORIGIN");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(
      res.headers.get("content-security-policy") ?? "",
      /script-src 'self'/,
    );
  } finally {
    await t.close();
  }
});

Deno.test("the console refuses to start without a sign-in provider", async () => {
  await assert.rejects(
    () => startConsole({ sandbox: "off" }),
    (err: Error) => err instanceof TypeError && /no sign-in provider/.test(err.message),
  );
});
