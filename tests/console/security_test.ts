import assert from "node:assert/strict";
import { approveConsent, Client, csrfOf, signIn, startConsole } from "./_helpers.ts";

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
    const client = await signIn(t.origin);
    const csrf = csrfOf(await client.text("/", 200));
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
