// A community changed while its tokens are being renewed under the lease: its
// client secret rotated (communities.save with a new clientSecret) or the
// community removed. The renewed pair must not undo the change, nor bring a
// removed community back, and the lease must be let go.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { expiredCommunityOf, withPlatform } from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";
const LEASE_KEY = ["community_renewal", "tenant-acme"];

Deno.test("a client secret rotated during a renewal stays, and the renewed pair is stored beside it", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    await hooks.communities.save(expiredCommunityOf(platform));
    platform.override = async (_req, url) => {
      if (url.pathname !== "/oauth2/token") return undefined;
      const now = await hooks.communities.findByTenantID("tenant-acme");
      await hooks.communities.save({ ...now!, clientSecret: "rotated-secret" });
      return undefined;
    };
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    const stored = await hooks.communities.findByTenantID("tenant-acme");
    assert.equal(stored?.clientSecret, "rotated-secret");
    assert.deepEqual(stored?.oauth, platform.issued[0]);
    assert.equal((await kv.get(LEASE_KEY)).value, null);
  }, { tokens: [] });
});

Deno.test("a community removed during a renewal stays removed, and the lease is let go", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    await hooks.communities.save(expiredCommunityOf(platform));
    platform.override = async (_req, url) => {
      if (url.pathname === "/oauth2/token") await hooks.communities.remove("tenant-acme");
      return undefined;
    };
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook").catch(() => {});
    assert.equal(await hooks.communities.findByTenantID("tenant-acme"), null);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal((await kv.get(LEASE_KEY)).value, null);
  }, { tokens: [] });
});
