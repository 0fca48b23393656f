// communities.storeTokens() given a tenant id or token pair of the wrong
// shape: a TypeError naming it, never a token value, and the stored pair kept.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

Deno.test("communities.storeTokens() refuses a tenant id or token pair of the wrong shape, keeping the stored tokens", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const bad: [unknown, unknown, RegExp][] = [
      ["tenant-acme", null, /'tokens' must be an object/],
      ["tenant-acme", "good-token", /'tokens' must be an object/],
      ["tenant-acme", {}, /'tokens.access_token' must be a non-empty string/],
      ["tenant-acme", { access_token: 5, refresh_token: "r" }, /'tokens.access_token' must be a non-empty string/],
      ["tenant-acme", { access_token: "a", refresh_token: 5 }, /'tokens.refresh_token' must be a string/],
      [5, { access_token: "a", refresh_token: "r" }, /'tenantId' must be a non-empty string/],
    ];
    for (const [tenantId, tokens, message] of bad) {
      await assert.rejects(
        () => hooks.communities.storeTokens(tenantId as never, tokens as never),
        (e: Error) => e instanceof TypeError && message.test(e.message) && !e.message.includes("good-token"),
      );
    }
    const stored = await hooks.communities.findByTenantID("tenant-acme");
    assert.deepEqual(stored?.oauth, { access_token: "good-token", refresh_token: "good-refresh" });
  });
});

Deno.test("communities.storeTokens() refuses a pair too large for the community's KV value with a RangeError naming it, never the tokens", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const before = await hooks.communities.findByTenantID("tenant-acme");
    const huge = { access_token: "TOKEN".repeat(14_000), refresh_token: "r2" };
    await assert.rejects(hooks.communities.storeTokens("tenant-acme", huge), (e: Error) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(
        e.message,
        /^Cannot save the renewed tokens of community "tenant-acme": it is larger than the 65536 bytes/,
      );
      assert.ok(!e.message.includes("TOKENTOKEN"));
      return true;
    });
    assert.deepEqual(await hooks.communities.findByTenantID("tenant-acme"), before);
  });
});
