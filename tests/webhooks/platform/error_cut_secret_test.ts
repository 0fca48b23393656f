// A platform's error message is cut to 300 characters for the error a call rejects with: a secret the platform
// echoed across the cut (its Basic credentials, a client secret, a token) must not leave its first part behind,
// which the blotting of whole secrets no longer recognises. Nor may the Basic credentials echoed in another spelling.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, expiredCommunityOf, withPlatform } from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";

/** The error `register` rejects with, all that may be shown of it. */
async function shownError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => assert.fail("the call should fail"), (error) => error);
  return `${error.message} ${error.stack} ${JSON.stringify(error.body)} ${JSON.stringify(error)}`;
}

Deno.test("a token endpoint whose echo of the Basic credentials the 300-character cut goes through shows none of them", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    await hooks.communities.save(expiredCommunityOf(platform));
    const basic = new TextEncoder().encode("client-1:secret-1").toBase64();
    for (const cut of [4, 12, 20]) {
      platform.override = (req, url) => {
        if (url.pathname !== "/oauth2/token") return undefined;
        const echoed = `unknown client: ${req.headers.get("authorization")}`;
        // The cut falls `cut` characters into the base64 of "client-1:secret-1".
        const pad = "x".repeat(300 - (echoed.length - basic.length) - cut);
        return Response.json({ error: "invalid_client", error_description: pad + echoed }, { status: 401 });
      };
      const shown = await shownError(hooks.register("Acme", ["document"], PLACE, "https://me.example/hook"));
      assert.match(shown, /xxxx/);
      assert(!shown.includes(basic.slice(0, cut)), `the first ${cut} characters of the credentials: ${shown}`);
    }
  }, { tokens: [] });
});

Deno.test("an API error whose echo of the access token the 300-character cut goes through shows none of it", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    await hooks.communities.save(communityOf(platform));
    let token = "";
    platform.override = (req, url) => {
      if (url.pathname !== "/api/core/v3/webhooks" || req.method !== "POST") return undefined;
      token = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
      const echoed = `refused for ${token}`;
      const pad = "x".repeat(300 - echoed.length + Math.ceil(token.length / 2));
      return new Response(pad + echoed, { status: 400 }); // not JSON: its text is the detail
    };
    const shown = await shownError(hooks.register("Acme", ["document"], PLACE, "https://me.example/hook"));
    assert(token.length >= 8, token);
    assert.match(shown, /refused for/);
    assert(!shown.includes(token.slice(0, Math.floor(token.length / 2))), `half the access token: ${shown}`);
  });
});

Deno.test("a token endpoint that echoes the Basic credentials unpadded, as base64url or decoded shows none of them, a 1-character secret's too", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    await hooks.communities.save({ ...expiredCommunityOf(platform), clientId: "c~~?>1", clientSecret: "z" });
    const basic = new TextEncoder().encode("c~~?>1:z").toBase64();
    assert.match(basic, /[+/]/);
    assert.match(basic, /=$/);
    const spellings = [
      basic.replace(/=+$/, ""),
      basic.replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_"),
      encodeURIComponent(basic),
      "c~~?>1:z",
    ];
    for (const spelling of spellings) {
      platform.override = (_req, url) =>
        url.pathname === "/oauth2/token"
          ? Response.json({ error: "invalid_client", error_description: `unknown client ${spelling}` }, { status: 401 })
          : undefined;
      const shown = await shownError(hooks.register("Acme", ["document"], PLACE, "https://me.example/hook"));
      assert.match(shown, /unknown client/);
      assert(!shown.includes(spelling), `${spelling} in ${shown}`);
    }
  }, { tokens: [] });
});
