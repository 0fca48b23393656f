// The renewal lease seen from one process: what another process left in KV
// (a renewed pair, a lease held or run out) decides whether a refused request
// renews, waits, or retries with the stored pair. Calls with explicit tokens
// or a tokenPersistenceFunction keep their own renewal and take no lease.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { expiredCommunityOf, until, withPlatform } from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";
const LEASE_KEY = ["community_renewal", "tenant-acme"];

Deno.test("a request refused after another process stored a renewed pair retries with that pair and does not renew", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    let renewedElsewhere = false;
    platform.override = async (req) => {
      if (!renewedElsewhere && req.headers.get("authorization") === "Bearer expired") {
        // Another process renews while this request is under way.
        renewedElsewhere = true;
        await platform.sandbox.issueTokens({ accessToken: "fresh-token", refreshToken: "fresh-refresh" });
        await createWebhooks(kv).communities.storeTokens("tenant-acme", {
          access_token: "fresh-token",
          refresh_token: "fresh-refresh",
        });
      }
      return undefined;
    };
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 0);
    const posts = platform.requests("POST", "/api/core/v3/webhooks");
    assert.deepEqual(posts.map((r) => r.authorization), ["Bearer expired", "Bearer fresh-token"]);
    assert.equal((await hooks.communities.findByTenantID("tenant-acme"))?.oauth?.access_token, "fresh-token");
  }, { tokens: [] });
});

Deno.test("a request refused while another process holds the lease waits for the pair it stores", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    await kv.set(LEASE_KEY, { owner: "other-process", until: Date.now() + 20_000 });
    const registering = hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    // Refused once (however long that takes), then waiting: 400 ms on, it has sent nothing more.
    await until(() => platform.requests("POST", "/api/core/v3/webhooks").length > 0, 10_000, "the refused request");
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 1, "refused once, now waiting");
    // The holder stores its pair and lets go.
    await platform.sandbox.issueTokens({ accessToken: "fresh-token", refreshToken: "fresh-refresh" });
    await createWebhooks(kv).communities.storeTokens("tenant-acme", {
      access_token: "fresh-token",
      refresh_token: "fresh-refresh",
    });
    await kv.delete(LEASE_KEY);
    await registering;
    assert.equal(platform.requests("POST", "/oauth2/token").length, 0);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").at(-1)?.authorization, "Bearer fresh-token");
  }, { tokens: [] });
});

Deno.test("a lease that ran out does not hold back a renewal, and the renewal lets go of its own lease", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    // Ran out by more than its length (30 s time-out plus 5 s): no clock this far behind, its holder is gone.
    await kv.set(LEASE_KEY, { owner: "dead-process", until: Date.now() - 35_001 });
    const started = Date.now();
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    assert(Date.now() - started < 2_000, "it did not wait");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
    assert.equal((await kv.get(LEASE_KEY)).value, null);
  }, { tokens: [] });
});

Deno.test("calls with explicit tokens or a tokenPersistenceFunction renew at once, whatever lease is held", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    const lease = { owner: "other-process", until: Date.now() + 60_000 };
    await kv.set(LEASE_KEY, lease);
    const persisted: unknown[] = [];
    const started = Date.now();
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/a", null, null, (tokens) => {
      persisted.push(tokens);
    });
    await hooks.register(
      "Acme",
      ["document"],
      PLACE,
      "https://me.example/b",
      "expired",
      platform.issued[0].refresh_token,
    );
    assert(Date.now() - started < 2_000, "neither waited for the lease");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 2);
    assert.deepEqual(persisted, [platform.issued[0]]);
    // The persistence function owns the first pair; the explicit call stored the second on the community.
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[1]);
    assert.deepEqual((await kv.get(LEASE_KEY)).value, lease);
  }, { tokens: [] });
});
