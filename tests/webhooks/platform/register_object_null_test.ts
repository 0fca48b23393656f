// SPEC.md 2.3: `object` is a string, optional for system events. The
// positional form of register() leaves out an `object` given as null; the
// options form must send the same body, not `"object": null`.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";
import { CALLBACK } from "./_register.ts";

Deno.test("register() in the options form leaves out an object given as null, as the positional form does", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    await hooks.register({ community: "Acme", events: ["user_account"], object: null as never, callback: CALLBACK });
    const bodies = platform.requests("POST", "/api/core/v3/webhooks").map((seen) => JSON.parse(seen.body));
    assert.deepEqual(bodies, [
      { events: ["user_account"], callback: CALLBACK },
      { events: ["user_account"], callback: CALLBACK },
    ]);
    const pending = await hooks.pending("tenant-acme");
    assert.deepEqual(pending, []);
  });
});
