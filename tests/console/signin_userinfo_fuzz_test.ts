// The sign-in provider's userinfo answer is an outside answer like any other: its `sub` keys the user's "last
// community used" (["console_last_community", sub]) and its name is kept in the session. A `sub` past the 255
// characters OpenID Connect allows (here 2,100) signed the user in, and every later visit of the register page
// answered 500 (KV refuses a key past 2 KiB). Such an answer must be refused at sign-in, named on the log, no session
// made; an ordinary one still signs in and the register page still answers.

import assert from "node:assert/strict";
import { Client, startConsole } from "./_helpers.ts";

/** A provider on 127.0.0.1 whose userinfo answers `user`. */
function provider(user: () => Record<string, unknown>) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/token") return Response.json({ access_token: "at-1", token_type: "bearer" });
    if (path === "/userinfo") return Response.json(user());
    return new Response("not found", { status: 404 });
  });
}

/** Signs in at the console through `idp` (the authorize step skipped: its redirect back is made here). */
async function signInThrough(origin: string): Promise<{ client: Client; status: number; location: string }> {
  const client = new Client(origin);
  const login = await client.fetch("/auth/login?returnTo=/");
  await login.body?.cancel();
  const authorize = new URL(login.headers.get("location")!);
  const back = new URL(authorize.searchParams.get("redirect_uri")!);
  back.searchParams.set("code", "code-1");
  back.searchParams.set("state", authorize.searchParams.get("state")!);
  const done = await client.fetch(back.pathname + back.search);
  await done.body?.cancel();
  return { client, status: done.status, location: done.headers.get("location") ?? "" };
}

Deno.test("a sign-in whose userinfo sub is longer than OpenID Connect allows is refused, no page answers 500", async () => {
  let user: Record<string, unknown> = { sub: "alice", name: "Alice" };
  const idp = provider(() => user);
  const at = `http://127.0.0.1:${idp.addr.port}`;
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warned.push(args.join(" "));
  const t = await startConsole({
    sandbox: "off",
    oauth: {
      authorizationEndpoint: `${at}/authorize`,
      tokenEndpoint: `${at}/token`,
      userinfoEndpoint: `${at}/userinfo`,
      clientId: "console-client",
      clientSecret: "idp-secret",
    },
  });
  try {
    const ordinary = await signInThrough(t.origin);
    assert.equal(ordinary.location, "/");
    const page = await ordinary.client.fetch("/webhooks/new");
    await page.body?.cancel();
    assert.equal(page.status, 200);

    user = { sub: "s".repeat(2_100), name: "Mallory" };
    const long = await signInThrough(t.origin);
    if (long.location === "/") {
      const next = await long.client.fetch("/webhooks/new");
      await next.body?.cancel();
      assert.notEqual(next.status, 500, "the register page answers 500 to the user the provider named");
    }
    assert.equal(long.status, 302);
    assert.equal(long.location, "/signin?error=1");
    assert.ok(!long.client.cookies.has("cw_session"), "a session was made");
    assert.ok(warned.some((w) => /Sign-in failed: .*sub/.test(w)), `the log does not say why: ${warned.join("\n")}`);
    assert.ok(!warned.join("\n").includes("s".repeat(300)), "the log quotes the sub");
  } finally {
    console.warn = warn;
    await t.close();
    await idp.shutdown();
  }
});
