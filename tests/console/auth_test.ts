import assert from "node:assert/strict";
import { createApp } from "../../console/app.ts";
import { describeOAuthError, exchangeCode } from "../../console/lib/oauth.ts";
import { createWebhooks } from "../../webhooks/mod.ts";
import { Client, csrfOf, parse, signIn, signInAtForm, startConsole } from "./_helpers.ts";

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

Deno.test("the console refuses to start without a sign-in provider", async () => {
  await assert.rejects(
    () => startConsole({ sandbox: "off" }),
    (err: Error) => err instanceof TypeError && /no sign-in provider/.test(err.message),
  );
});

Deno.test("createApp() answers without being awaited and without a publicUrl", async () => {
  const kv = await Deno.openKv(":memory:");
  const consoleApp = createApp({ kv, buildAssets: false });
  try {
    const res = await consoleApp.app.request("/healthz");
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(consoleApp.sandbox, true);
    const community = await consoleApp.webhooks.communities.findByTenantID("sandbox-tenant");
    assert.equal(community?.baseUrl, "http://127.0.0.1:8000/sandbox");
  } finally {
    await consoleApp.close();
    kv.close();
  }
});

Deno.test("with a configured provider and a real community, the sandbox stays off and sign-in goes to the provider", async () => {
  const kvPath = await Deno.makeTempFile({ suffix: ".kv" });
  try {
    const kv = await Deno.openKv(kvPath);
    await createWebhooks(kv).communities.save({
      name: "Acme",
      tenantId: "acme",
      baseUrl: "https://acme.example",
    });
    kv.close();
    const t = await startConsole({
      kvPath,
      oauth: {
        authorizationEndpoint: "https://idp.example/authorize",
        tokenEndpoint: "https://idp.example/token",
        clientId: "console-client",
        clientSecret: "idp-secret",
      },
    });
    try {
      assert.equal(t.app.sandbox, false);
      assert.equal(await t.app.webhooks.communities.findByTenantID("sandbox-tenant"), null);
      const sandbox = await fetch(`${t.origin}/sandbox`);
      assert.equal(sandbox.status, 404);
      await sandbox.body?.cancel();
      const login = await fetch(`${t.origin}/auth/login`, { redirect: "manual" });
      await login.body?.cancel();
      const to = new URL(login.headers.get("location")!);
      assert.equal(to.origin + to.pathname, "https://idp.example/authorize");
      assert.equal(to.searchParams.get("client_id"), "console-client");
      assert.equal(to.searchParams.get("redirect_uri"), `${t.origin}/auth/callback`);
      assert.equal(to.searchParams.get("code_challenge_method"), "S256");
      assert.ok(!login.headers.get("location")!.includes("idp-secret"));
      const signin = await fetch(`${t.origin}/signin`);
      assert.match(await signin.text(), /Sign in with idp\.example/);
    } finally {
      await t.close();
    }
  } finally {
    await Deno.remove(kvPath);
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
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
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
  } finally {
    await t.close();
  }
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

/** A sign-in provider on 127.0.0.1 whose token endpoint answers `status` with `headers` and a plain-text body. */
async function withRefusingProvider(
  status: number,
  headers: Record<string, string>,
  fn: (
    provider: { authorizationEndpoint: string; tokenEndpoint: string; clientId: string; clientSecret: string },
  ) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    return new Response("Too Many Requests", { status, headers: { "content-type": "text/plain", ...headers } });
  });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    await fn({
      authorizationEndpoint: `${base}/authorize`,
      tokenEndpoint: `${base}/token`,
      clientId: "console-client",
      clientSecret: "provider-secret",
    });
  } finally {
    await server.shutdown();
  }
}

/** Starts a sign-in, comes back with a code, and returns where the console sent the browser and the page there. */
async function signInAgainst(origin: string): Promise<{ location: string; error: string }> {
  const client = new Client(origin);
  const login = await client.fetch("/auth/login");
  await login.body?.cancel();
  const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
  const back = await client.fetch(`/auth/callback?code=the-code&state=${encodeURIComponent(state)}`);
  await back.body?.cancel();
  assert.equal(back.status, 302);
  const location = back.headers.get("location")!;
  const page = parse(await client.text(location, 200));
  try {
    return { location, error: page.document.querySelector("p.error")?.textContent ?? "" };
  } finally {
    page.close();
  }
}

Deno.test("a provider's 429 at the token endpoint is named on the sign-in page with its wait, not as an answer not understood", async () => {
  await withRefusingProvider(429, { "retry-after": "17" }, async (oauth) => {
    const t = await startConsole({ oauth });
    try {
      const { location, error } = await signInAgainst(t.origin);
      assert.equal(location, "/signin?error=busy&wait=17");
      assert.equal(error, "The provider refused: too many requests (429); try again in 17 s.");
    } finally {
      await t.close();
    }
  });
  await withRefusingProvider(429, {}, async (oauth) => {
    const t = await startConsole({ oauth });
    try {
      const { location, error } = await signInAgainst(t.origin);
      assert.equal(location, "/signin?error=busy");
      assert.equal(error, "The provider refused: too many requests (429); try again later.");
    } finally {
      await t.close();
    }
  });
});

Deno.test("describeOAuthError() names a provider's refusal by its status, whatever its body", async () => {
  const failure = async (provider: Parameters<typeof exchangeCode>[0]): Promise<string> => {
    const secrets = { codeVerifier: "v".repeat(43), state: "st" };
    try {
      await exchangeCode(
        provider,
        new URL("http://c.example/cb?code=x&state=st"),
        "http://c.example/cb",
        secrets,
        fetch,
      );
    } catch (err) {
      return describeOAuthError(err);
    }
    throw new Error("The exchange did not fail");
  };
  await withRefusingProvider(429, { "retry-after": "5" }, async (provider) => {
    assert.equal(await failure(provider), "The provider refused: too many requests (429); try again in 5 s");
  });
  await withRefusingProvider(503, {}, async (provider) => {
    assert.equal(await failure(provider), "The provider refused: it answered HTTP 503");
  });
});
