// A 504 comes from a gateway that stopped waiting for the platform: the
// platform may have made the hook all the same, exactly as when register()'s
// own time-out strikes. The pending entry must stay, so that reconcile() can
// explain the hook and adopt it (API.md: only a clean failure clears it).

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("register() answered 504 after the platform made the hook keeps the pending entry; reconcile() adopts the hook", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method !== "POST" || !String(input).endsWith("/api/core/v3/webhooks")) return response;
        // The platform made the hook; the gateway in front of it gave up waiting.
        await response.body?.cancel();
        return new Response("<html><body>504 Gateway Time-out</body></html>", {
          status: 504,
          headers: { "content-type": "text/html" },
        });
      },
    });
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) => e instanceof PlatformError && e.status === 504 && e.uncertain === true,
    );
    assert.equal((await platform.listHooks()).length, 1);
    assert.equal((await hooks.pending("tenant-acme")).length, 1);
    const community = (await hooks.communities.findByName("Acme"))!;
    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.equal(report.orphans[0]?.pending?.callback, CALLBACK);
    const ref = `${platform.url}/api/core/v3/webhooks/${FIRST_HOOK_ID}`;
    assert.equal((await hooks.findByWebhookURL(ref)).length, 1);
  });
});
