// register()'s token renewal: Basic credentials, renewing on a 401 or 403 and
// retrying once, public clients, where the renewed pair is stored, and a
// failing renewal.

import assert from "node:assert/strict";
import { createWebhooks, PlatformError, type TokenPair } from "../../../webhooks/mod.ts";
import { communityOf, expiredCommunityOf, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("renewal's Basic credentials are the base64 of the UTF-8 id and secret, however long the secret", async () => {
  // A secret near KV's 64 KiB per value, beyond Latin-1.
  const clientSecret = "sécret-☕-".repeat(2_500);
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save({ ...expiredCommunityOf(platform), clientSecret });
    // The test platform knows another secret: the renewal is refused, after it was sent as it should be.
    await assert.rejects(hooks.register("Acme", ["document"], PLACE, CALLBACK), /wrong client secret/);
    const [renewal] = platform.requests("POST", "/oauth2/token");
    const basic = renewal.authorization!.replace(/^Basic /, "");
    assert.equal(new TextDecoder().decode(Uint8Array.fromBase64(basic)), `client-1:${clientSecret}`);
  }, { tokens: [] });
});

Deno.test("register() renews on a 401, retries once and stores the new pair in the community", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);

    const [renewal] = platform.requests("POST", "/oauth2/token");
    assert.equal(renewal.authorization, "Basic " + btoa("client-1:secret-1"));
    assert.equal(renewal.contentType, "application/x-www-form-urlencoded");
    assert.deepEqual(Object.fromEntries(new URLSearchParams(renewal.body)), {
      grant_type: "refresh_token",
      refresh_token: "good-refresh",
      client_id: "client-1",
    });
    const posts = platform.requests("POST", "/api/core/v3/webhooks");
    assert.deepEqual(posts.map((p) => p.authorization), [
      "Bearer expired",
      `Bearer ${platform.issued[0].access_token}`,
    ]);
    const community = await hooks.communities.findByName("Acme");
    assert.deepEqual(community?.oauth, platform.issued[0]);
    assert.ok(!Number.isNaN(Date.parse(community!.renewedAt!)));
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);
  }, { tokens: [] });
});

Deno.test("register() of a community saved without a client id renews as a public client, then retries", async () => {
  const seen: { path: string; authorization: string | null; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const { pathname } = new URL(req.url);
    seen.push({ path: pathname, authorization: req.headers.get("authorization"), body: await req.text() });
    if (pathname === "/oauth2/token") return Response.json({ access_token: "fresh", refresh_token: "fresh-refresh" });
    if (req.headers.get("authorization") !== "Bearer fresh") {
      return Response.json({ error: "expired" }, { status: 401 });
    }
    return Response.json({
      id: "77",
      resources: { self: { ref: `${new URL(req.url).origin}/api/core/v3/webhooks/77` } },
    });
  });
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const baseUrl = `http://127.0.0.1:${server.addr.port}`;
    await hooks.communities.save({
      name: "Public",
      tenantId: "tenant-public",
      baseUrl,
      oauth: { access_token: "expired", refresh_token: "old-refresh" },
    });
    const answer = await hooks.register("Public", ["document"], PLACE, CALLBACK);
    assert.equal(answer.entity.id, "77");
    assert.deepEqual(seen.map((r) => r.path), ["/api/core/v3/webhooks", "/oauth2/token", "/api/core/v3/webhooks"]);
    // No client id to name or to authenticate with: the refresh token alone, and no Basic credentials.
    assert.equal(seen[1].authorization, null);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[1].body)), {
      grant_type: "refresh_token",
      refresh_token: "old-refresh",
    });
    assert.deepEqual((await hooks.communities.findByName("Public"))?.oauth, {
      access_token: "fresh",
      refresh_token: "fresh-refresh",
    });
  } finally {
    kv.close();
    await server.shutdown();
  }
});

Deno.test("register() renews on a 403 too", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 2);
  }, { tokens: [], forbidWith403: true });
});

Deno.test("register() gives renewed tokens to tokenPersistenceFunction and leaves the community as it was", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    const original = expiredCommunityOf(platform);
    await hooks.communities.save(original);
    const calls: [TokenPair, string][] = [];
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, undefined, undefined, (tokens, community) => {
      calls.push([tokens, community.name]);
    });
    assert.deepEqual(calls, [[platform.issued[0], "Acme"]]);
    assert.deepEqual((await hooks.communities.findByName("Acme"))?.oauth, original.oauth);
  }, { tokens: [] });
});

Deno.test("register() with explicit tokens and no persistence function stores the renewed pair in the community", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, "explicit-expired", "good-refresh");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByName("Acme"))?.oauth, {
      ...platform.issued[0],
    });
  }, { tokens: [] });
});

Deno.test("register() rejects with the renewal's status when renewal fails, and stores nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(
      communityOf(platform, { oauth: { access_token: "expired", refresh_token: "revoked" } }),
    );
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    assert.equal(error.status, 400);
    assert.match(error.message, /token renewal failed/);
    assert.ok(!error.message.includes("revoked") && !error.message.includes("secret-1"));
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 1);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  }, { tokens: [] });
});

Deno.test("register() renews at most once: a second 401 rejects", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (_req, url) =>
      url.pathname.startsWith("/api")
        ? Response.json({ error: { status: 401, message: "nope" } }, { status: 401 })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK), { status: 401 });
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 2);
  });
});

Deno.test("after a renewal, the next register() finds the stored pair and sends the renewed token, renewing no more", async () => {
  // PLATFORM.md's lesson: tokens stored under other field names made every later registration fail "no access token".
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, "explicit-expired", "good-refresh");
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    assert.deepEqual(platform.requests("POST", "/api/core/v3/webhooks").map((p) => p.authorization), [
      "Bearer explicit-expired",
      `Bearer ${platform.issued[0].access_token}`,
      `Bearer ${platform.issued[0].access_token}`,
    ]);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 2);
  }, { tokens: [] });
});
