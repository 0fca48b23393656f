import assert from "node:assert/strict";
import { approveConsent, Client, startConsole } from "./_helpers.ts";

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
