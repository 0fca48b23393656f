// Arguments of the wrong type to the platform operations: a clear TypeError
// naming the argument, no request sent, and stored data left as it was.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";

Deno.test("reconcile() refuses a fix or deleteUnknown that is not a boolean, deleting nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const stranger = await platform.addHook({ events: ["user_account"], callback: CALLBACK });
    // A flag read from a form or an environment variable arrives as a string: "false" is truthy.
    for (const options of [{ fix: "false", deleteUnknown: true }, { fix: true, deleteUnknown: "false" }, { fix: 1 }]) {
      await assert.rejects(
        () => hooks.reconcile({ tenantId: "tenant-acme" }, { staleAfter: 0, ...options } as never),
        (e: Error) => e instanceof TypeError && /'(fix|deleteUnknown)' must be a boolean/.test(e.message),
      );
    }
    assert.notEqual(await platform.hook(stranger.id as string), undefined);
    assert.equal(platform.seen.length, 0);
  });
});
