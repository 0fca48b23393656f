// The console against other sites: unsafe requests of any content type from
// another origin are refused even with the token, the sandbox's consent page
// cannot be framed, and console pages only submit forms to the console.

import assert from "node:assert/strict";
import { Client, signInAtForm, startConsole } from "./_helpers.ts";

Deno.test("unsafe requests of any content type from another origin are refused, even with the token", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/");
    const attempts: Record<string, string>[] = [
      { "content-type": "application/json", origin: "https://evil.example" },
      { "content-type": "application/json", origin: "null" },
      { "content-type": "application/json", "sec-fetch-site": "cross-site" },
      { "content-type": "text/plain", origin: "https://evil.example" },
      { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    ];
    for (const headers of attempts) {
      const res = await client.fetch("/signout", {
        method: "POST",
        headers: { ...headers, "x-csrf-token": csrf },
        body: headers["content-type"].startsWith("application/x-www") ? `_csrf=${csrf}` : "{}",
      });
      await res.body?.cancel();
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.ok(client.cookies.has("cw_session"), JSON.stringify(headers));
    }
    // Still signed in.
    const page = await client.fetch("/communities");
    await page.body?.cancel();
    assert.equal(page.status, 200);
    // Chromium sends `Origin: null` on form posts under `Referrer-Policy:
    // no-referrer`, with `Sec-Fetch-Site: same-origin`: that is this origin.
    const form = await client.fetch("/communities/sandbox-tenant/reconcile", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "null",
        "sec-fetch-site": "same-origin",
      },
      body: `_csrf=${csrf}`,
    });
    await form.body?.cancel();
    assert.equal(form.status, 303);
    // The same request from the console's origin goes through.
    const ok = await client.fetch("/signout", {
      method: "POST",
      headers: { "content-type": "application/json", origin: t.origin, "x-csrf-token": csrf },
      body: "{}",
    });
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
  } finally {
    await t.close();
  }
});

Deno.test("the sandbox's consent page cannot be framed and its pages carry a content security policy", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    const login = await client.fetch("/auth/login?returnTo=/");
    await login.body?.cancel();
    const consent = await fetch(login.headers.get("location")!);
    const html = await consent.text();
    assert.equal(consent.status, 200, html.slice(0, 300));
    // The sandbox asks for DENY on its consent page; the console's headers must not weaken it.
    assert.equal(consent.headers.get("x-frame-options"), "DENY");
    const csp = consent.headers.get("content-security-policy") ?? "";
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.equal(consent.headers.get("x-content-type-options"), "nosniff");
    const index = await fetch(`${t.origin}/sandbox`);
    await index.body?.cancel();
    assert.match(index.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  } finally {
    await t.close();
  }
});

Deno.test("console pages only submit forms to the console", async () => {
  const t = await startConsole();
  try {
    const res = await fetch(`${t.origin}/signin`);
    await res.body?.cancel();
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /form-action 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
  } finally {
    await t.close();
  }
});
