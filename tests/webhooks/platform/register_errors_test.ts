// register()'s platform errors: method, URL and status named, and every token
// and the client secret blotted from the message and body.

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, HIJACK, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("register() rejects with the platform's error, naming method, URL and status but no token, in its message or body", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (req) =>
      req.method === "POST"
        ? new Response(HIJACK + JSON.stringify({ error: { status: 500, message: "Boom near good-token" } }), {
          status: 500,
        })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    assert.equal(error.status, 500);
    assert.equal(error.method, "POST");
    assert.equal(error.url, `${platform.url}/api/core/v3/webhooks`);
    assert.match(error.message, new RegExp(`^POST ${platform.url}/api/core/v3/webhooks failed with status 500: Boom`));
    assert.ok(!error.message.includes("good-token"));
    // The platform's body, but for the token it echoed: an error logged whole prints its body.
    assert.deepEqual(error.body, { error: { status: 500, message: "Boom near [redacted]" } });
    assert.ok(!Deno.inspect(error, { depth: 10 }).includes("good-token"));
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});

Deno.test("a platform error's body has every token and the client secret blotted, in nested values and keys", async () => {
  await withPlatform(async (kv, platform) => {
    const echoed = {
      error: { message: "no", detail: ["token good-token", { "secret-1": "good-refresh" }] },
      deep: JSON.parse("[".repeat(40) + '"good-token"' + "]".repeat(40)),
      count: 3,
      ok: false,
      none: null,
    };
    platform.override = (req) => req.method === "POST" ? Response.json(echoed, { status: 400 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(
      communityOf(platform, { oauth: { access_token: "good-token", refresh_token: "good-refresh" } }),
    );
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    const body = error.body as typeof echoed;
    assert.deepEqual(body.error, { message: "no", detail: ["token [redacted]", { "[redacted]": "[redacted]" }] });
    assert.deepEqual([body.count, body.ok, body.none], [3, false, null]);
    const shown = Deno.inspect(error, { depth: 100 });
    for (const secret of ["good-token", "good-refresh", "secret-1"]) assert.ok(!shown.includes(secret), secret);
  });
});

Deno.test("a platform error that echoes the renewal's form has the refresh token blotted as encoded there too", async () => {
  await withPlatform(async (kv, platform) => {
    const refresh = "rt+a/b=c d";
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh }).toString();
    platform.override = (req, url) =>
      url.pathname.endsWith("/oauth2/token")
        ? Response.json({
          error: "invalid_grant",
          request: form,
          query: `?refresh_token=${encodeURIComponent(refresh)}`,
        }, {
          status: 400,
        })
        : req.method === "POST"
        ? Response.json({ error: "expired" }, { status: 401 })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: { access_token: "stale", refresh_token: refresh } }));
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    assert.equal(error.status, 400);
    const shown = Deno.inspect(error, { depth: 100 }) + JSON.stringify(error.body);
    for (const spelling of [refresh, "rt%2Ba%2Fb%3Dc+d", "rt%2Ba%2Fb%3Dc%20d"]) {
      assert.ok(!shown.includes(spelling), spelling);
    }
    assert.match(JSON.stringify(error.body), /refresh_token=\[redacted\]/);
  }, { tokens: [] });
});

Deno.test("register() with an access token no header can carry rejects with status 0, the token blotted out", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: { access_token: "SECRETAAAA\nSECRETBBBB" } }));
    await assert.rejects(
      () => hooks.register("Acme", ["user_account"], null, CALLBACK),
      (e: PlatformError) =>
        e.status === 0 && e.method === "POST" && /\[token\]/.test(e.message) && !e.message.includes("SECRET") &&
        !String(e.stack).includes("SECRET"),
    );
    assert.equal(platform.seen.length, 0);
  });
});
