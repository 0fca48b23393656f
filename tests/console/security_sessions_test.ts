// The console's sessions under attack: sign-in never sends the browser to
// another site whatever returnTo holds, an open event stream ends when its
// session signs out, and GET /session answers 204 only for the current
// session's token.

import assert from "node:assert/strict";
import fc from "fast-check";
import { approveConsent, Client, csrfOf, signIn, signInAtForm, startConsole } from "./_helpers.ts";

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
