// SPEC.md 4.1: register() POSTs to `{base_url}/api/core/v3/webhooks`. A
// community address with a query or a fragment cannot be joined with that
// path (the path would land inside the query or the fragment, and the request
// would go to the address's own path): such an address is refused by name.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

const TAILS = ["?instance=1", "?", "#top", "/#"];

Deno.test("communities.save() refuses a baseUrl with a query or a fragment, naming it, and stores nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    for (const tail of TAILS) {
      await assert.rejects(
        hooks.communities.save(communityOf(platform, { baseUrl: platform.url + tail })),
        (error: Error) => {
          assert.ok(error instanceof TypeError, `${tail}: ${error}`);
          assert.match(error.message, /^Cannot save community: 'baseUrl' must have no query and no fragment/);
          return true;
        },
      );
    }
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("register() of a community stored with a query in its baseUrl rejects naming it, sending nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    for (const tail of TAILS) {
      // Stored by an earlier version, which took such an address.
      const community = communityOf(platform, { baseUrl: platform.url + tail });
      await kv.atomic().set(["community", community.tenantId], community).set(
        ["community_by_name", community.name],
        community.tenantId,
      ).commit();
      await assert.rejects(hooks.register("Acme", ["document"], PLACE, CALLBACK), (error: Error) => {
        assert.ok(error instanceof TypeError, `${tail}: ${error}`);
        assert.match(error.message, /'baseUrl' must have no query and no fragment/);
        return true;
      });
    }
    assert.deepEqual(platform.seen, []);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});
