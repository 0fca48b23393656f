// Requests that meet a 401 at the same time share one renewal: the platform
// (the sandbox, as a real one may) rotates refresh tokens and accepts each
// once. A request sent after a renewal finished renews on its own.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, expiredCommunityOf, withPlatform } from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";

Deno.test("register() calls that meet a 401 together share one renewal of a rotating refresh token, and all succeed", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((i) => hooks.register("Acme", ["document"], PLACE, `https://me.example/hook/${i}`)),
    );
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal(platform.issued.length, 1);
    assert.deepEqual((await hooks.communities.findByName("Acme"))?.oauth, platform.issued[0]);
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 4);
    // Each retry carried the one renewed access token.
    const retries = platform.requests("POST", "/api/core/v3/webhooks").filter((r) =>
      r.authorization !== "Bearer expired"
    );
    assert.deepEqual(retries.map((r) => r.authorization), Array(4).fill(`Bearer ${platform.issued[0].access_token}`));
  }, { tokens: [] });
});

Deno.test("a request sent after a renewal finished renews on its own, with the refresh token it holds", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    // Explicit tokens: an access token the platform refuses and the refresh token, twice in a row.
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/a", "expired", "good-refresh");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    // The second call holds a refresh token that the first renewal used up: it asks the platform again (which
    // refuses it), and is not handed the pair another request was given.
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, "https://me.example/b", "expired", "good-refresh"),
      (error: Error & { status?: number }) => {
        assert.match(error.message, /token renewal failed/);
        assert(!error.message.includes("good-refresh"));
        return true;
      },
    );
    assert.equal(platform.requests("POST", "/oauth2/token").length, 2);
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);
  }, { tokens: [] });
});

Deno.test("a failed shared renewal fails each request that waited on it, and the next request tries again", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    let refuse = true;
    platform.override = (req, url) =>
      refuse && req.method === "POST" && url.pathname.endsWith("/oauth2/token")
        ? Response.json({ error: "temporarily_unavailable" }, { status: 503 })
        : undefined;
    const results = await Promise.allSettled(
      [1, 2].map((i) => hooks.register("Acme", ["document"], PLACE, `https://me.example/f/${i}`)),
    );
    assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected"]);
    refuse = false;
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/f/3");
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);
  }, { tokens: [] });
});
