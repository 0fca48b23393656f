// The console's sign-in provider: none refused at start, the sandbox by
// default, a configured provider instead of the sandbox, and a provider's
// refusal at its token endpoint named on the sign-in page and by
// describeOAuthError().

import assert from "node:assert/strict";
import { createApp } from "../../console/app.ts";
import { describeOAuthError, exchangeCode } from "../../console/lib/oauth.ts";
import { createWebhooks } from "../../webhooks/mod.ts";
import { Client, parse, startConsole } from "./_helpers.ts";

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
