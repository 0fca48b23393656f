import assert from "node:assert/strict";
import fc from "fast-check";
import { approveConsent, Client, csrfOf, signIn, signInAtForm, startConsole, trigger, withHook } from "./_helpers.ts";

/** Signs in with `returnTo`; resolves with the callback's answer. */
async function signInReturningTo(origin: string, returnTo: string): Promise<{ client: Client; res: Response }> {
  const client = new Client(origin);
  const login = await client.fetch(`/auth/login?${new URLSearchParams({ returnTo })}`);
  const back = await approveConsent(client, login);
  const callback = back.headers.get("location")!;
  await back.body?.cancel();
  const res = await client.fetch(callback);
  await res.body?.cancel();
  return { client, res };
}

Deno.test("sign-in never sends the browser to another site, whatever returnTo holds", async () => {
  const t = await startConsole();
  try {
    // Browsers drop tabs and newlines from URLs and read `\` as `/`, and
    // `/./` collapses: each of these would land on evil.example.
    const hostile = [
      "//evil.example/",
      "/\\evil.example/",
      "/\t/evil.example/",
      "/\n/evil.example/",
      "/\r\n/evil.example/",
      "/./\\evil.example/",
      "/.//evil.example/",
      "/%09/evil.example/",
      "https://evil.example/",
      "/\t\\evil.example/",
    ];
    for (const returnTo of hostile) {
      const { client, res } = await signInReturningTo(t.origin, returnTo);
      assert.equal(res.status, 302, JSON.stringify(returnTo));
      const location = res.headers.get("location")!;
      assert.ok(location.startsWith("/"), `${JSON.stringify(returnTo)} -> ${JSON.stringify(location)}`);
      assert.ok(!location.startsWith("//"), `${JSON.stringify(returnTo)} -> ${JSON.stringify(location)}`);
      assert.ok(
        [...location].every((ch) => ch > " " && ch !== "\\"),
        `${JSON.stringify(returnTo)} -> ${JSON.stringify(location)}`,
      );
      // What a browser makes of the Location header.
      assert.equal(new URL(location, t.origin).origin, t.origin, JSON.stringify(returnTo));
      assert.notEqual(location, "/signin?error=1", `${JSON.stringify(returnTo)} should still sign in`);
      assert.ok(client.cookies.has("cw_session"), JSON.stringify(returnTo));
    }
    // A local path with its query survives.
    const { res } = await signInReturningTo(t.origin, "/webhooks?tenant=a%20b");
    assert.equal(res.headers.get("location"), "/webhooks?tenant=a%20b");
  } finally {
    await t.close();
  }
});

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

Deno.test("an unsigned postback to an adoptable receiver id writes nothing", async () => {
  await withHook(async (t, { id, callback, ref, platformId }) => {
    const receiverId = callback.slice(callback.lastIndexOf("/") + 1);
    // As after an interrupted registration that reconcile adopted: no mapping yet.
    await t.kv.delete(["console_receiver", receiverId]);
    await t.kv.delete(["console_receiver_by_hook", id, receiverId]);
    const body = JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]);
    for (const authorization of [undefined, "JiveEXTN algorithm=HmacSHA256&signature=forged"]) {
      const res = await fetch(callback, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body,
      });
      await res.body?.cancel();
      assert.equal(res.status, 401);
      assert.equal(
        (await t.kv.get(["console_receiver", receiverId])).value,
        null,
        "no mapping from an unsigned request",
      );
    }
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 0);
    // The platform's signed postback is accepted and maps the receiver.
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    assert.deepEqual((await t.kv.get(["console_receiver", receiverId])).value, { hookId: id });
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 1);
  });
});

Deno.test("an open event stream ends when its session is signed out, announcing nothing more", async () => {
  const t = await startConsole();
  const abort = new AbortController();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/");
    const session = client.cookies.get("cw_session")!;
    const res = await client.fetch("/deliveries/events", { signal: abort.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: ready")) {
      const { done, value } = await reader.read();
      assert.ok(!done, text);
      text += decoder.decode(value, { stream: true });
    }
    const out = await client.post("/signout", { _csrf: csrf });
    await out.body?.cancel();
    assert.equal(out.status, 303);
    await t.app.deliveries.add("some-hook", [{ webhook: "w", activity: { verb: "jive:created" } }]);
    // The stream must end on its own (the session is gone), well before this.
    const timer = setTimeout(() => abort.abort(), 8000);
    let ended = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          ended = true;
          break;
        }
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      // aborted by the timer
    } finally {
      clearTimeout(timer);
    }
    assert.ok(ended, "the stream ended by itself");
    assert.ok(!text.includes("event: delivery"), text);
    // And a new stream with the old id is refused.
    client.cookies.set("cw_session", session);
    const again = await client.fetch("/deliveries/events");
    await again.body?.cancel();
    assert.equal(again.status, 302);
  } finally {
    abort.abort();
    await t.close();
  }
});

Deno.test("moving a community to another address does not hand its stored secrets to that address", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const secret = btoa("acme client secret");
    const add = await client.post("/communities", {
      _csrf: csrf,
      name: "Acme",
      tenantId: "acme",
      baseUrl: "https://acme.example",
      clientId: "acme-client",
      clientSecret: secret,
      accessToken: "acme-access-token",
      refreshToken: "acme-refresh-token",
    });
    await add.body?.cancel();
    assert.equal(add.status, 303);
    const edit = { _csrf: csrf, name: "Acme", clientId: "acme-client" };

    // Another origin without the secret typed again: refused, nothing changes.
    const moved = await client.post("/communities/acme", { ...edit, baseUrl: "https://evil.example" });
    const html = await moved.text();
    assert.equal(moved.status, 400);
    assert.match(html, /client secret again/);
    assert.ok(!html.includes(secret) && !html.includes("acme-access-token"));
    let stored = (await t.app.webhooks.communities.findByTenantID("acme"))!;
    assert.equal(stored.baseUrl, "https://acme.example");
    assert.equal(stored.clientSecret, secret);
    assert.equal(stored.oauth?.access_token, "acme-access-token");

    // Another path on the same origin keeps everything.
    const path = await client.post("/communities/acme", { ...edit, baseUrl: "https://acme.example/jive" });
    await path.body?.cancel();
    assert.equal(path.status, 303);
    stored = (await t.app.webhooks.communities.findByTenantID("acme"))!;
    assert.equal(stored.baseUrl, "https://acme.example/jive");
    assert.equal(stored.oauth?.access_token, "acme-access-token");

    // With the secret typed again, the move is saved and the old tokens are forgotten.
    const other = btoa("the new address's secret");
    const ok = await client.post("/communities/acme", {
      ...edit,
      baseUrl: "https://new.example",
      clientSecret: other,
    });
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    stored = (await t.app.webhooks.communities.findByTenantID("acme"))!;
    assert.equal(stored.baseUrl, "https://new.example");
    assert.equal(stored.clientSecret, other);
    assert.equal(stored.oauth, undefined);
  } finally {
    await t.close();
  }
});

/** Runs `console/main.ts` until it listens; resolves with what it printed on stderr by then. */
async function startupWarnings(env: Record<string, string>): Promise<string> {
  const root = new URL("../../", import.meta.url);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", root).pathname, "console/main.ts"],
    cwd: root.pathname,
    env: { PORT: "0", KV_PATH: ":memory:", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    const deadline = Date.now() + 30_000;
    while (!/listening on/.test(text)) {
      assert.ok(Date.now() < deadline, `no start line in: ${text}`);
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    await child.status;
  }
  assert.match(text, /listening on/);
  return await stderr;
}

Deno.test("the console command warns when the sandbox signs anyone in on a non-local address", async () => {
  const open = await startupWarnings({ HOST: "0.0.0.0" });
  assert.match(open, /anyone who can reach/i);
  const local = await startupWarnings({ HOST: "127.0.0.1" });
  assert.doesNotMatch(local, /anyone who can reach/i);
});

Deno.test("GET /session answers 204 only for a page of the current session (its token), and never redirects", async () => {
  const t = await startConsole();
  try {
    const anonymous = await fetch(`${t.origin}/session`, { redirect: "manual" });
    await anonymous.body?.cancel();
    assert.equal(anonymous.status, 401);
    const { client, csrf } = await signInAtForm(t.origin, "/");
    const ask = async (token?: string) => {
      const res = await client.fetch("/session", token === undefined ? {} : { headers: { "x-csrf-token": token } });
      await res.body?.cancel();
      assert.equal(res.headers.get("cache-control"), "no-store");
      return res.status;
    };
    assert.equal(await ask(csrf), 204);
    assert.equal(await ask(), 401);
    assert.equal(await ask(`${csrf}x`), 401);
    // Any other token, random or a near miss of the right one, is 401.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.stringMatching(/^[\x21-\x7e]{0,80}$/), fc.nat(csrf.length - 1).map((n) => csrf.slice(0, n))),
        async (token) => assert.equal(await ask(token), token === csrf ? 204 : 401, token),
      ),
      { numRuns: 100 },
    );
    const other = await signIn(t.origin);
    assert.equal(await ask(csrfOf(await other.text("/", 200))), 401, "another session's page");
    // Signing in and out both clear what the browser cached of pages.
    const { res } = await signInReturningTo(t.origin, "/");
    assert.equal(res.headers.get("clear-site-data"), '"cache"');
    const out = await client.post("/signout", { _csrf: csrf });
    await out.body?.cancel();
    assert.equal(out.headers.get("clear-site-data"), '"cache"');
  } finally {
    await t.close();
  }
});
