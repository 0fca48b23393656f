// What the console checks or adds on every request: the session's CSRF token
// and the origin of a form, secure headers and a content security policy, and
// form bodies over 256 KiB (413) or that cannot be read (400).

import assert from "node:assert/strict";
import { parse, signInAtForm, startConsole, withSignedIn } from "./_helpers.ts";

Deno.test("forms without the session's CSRF token or from another origin are refused", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
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

Deno.test("a console form over 256 KiB is refused with 413", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const res = await client.post("/communities", {
      _csrf: csrf,
      name: "x".repeat(300 * 1024),
      tenantId: "big",
      baseUrl: "https://big.example",
    });
    assert.equal(res.status, 413);
    await res.body?.cancel();
    assert.equal(await t.app.webhooks.communities.findByTenantID("big"), null);
  } finally {
    await t.close();
  }
});

Deno.test("a console form over 256 KiB is answered 413 with Connection: close (its body is left unread)", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    // Through the app itself: Deno.serve adds its own Connection header to some answers on the wire.
    const res = await t.app.fetch(
      new Request(`${t.origin}/communities`, {
        method: "POST",
        headers: { cookie, origin: t.origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, name: "x".repeat(300 * 1024), tenantId: "big" }),
      }),
    );
    assert.equal(res.status, 413);
    assert.equal(res.headers.get("connection"), "close");
    await res.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("a form body that cannot be read is answered 400", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const res = await client.fetch("/communities", {
      method: "POST",
      headers: { origin: t.origin, "content-type": "multipart/form-data; boundary=xyz" },
      body: "garbage",
    });
    assert.equal(res.status, 400);
    const page = parse(await res.text());
    try {
      assert.equal(page.document.querySelector("h1")?.textContent, "Bad request");
    } finally {
      page.close();
    }
  });
});
