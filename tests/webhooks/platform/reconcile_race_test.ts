// reconcile() with fix and deleteUnknown while a registration runs beside it:
// a hook being registered is never taken for an unknown one.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";

Deno.test("reconcile() with deleteUnknown leaves the hook of a registration that started after it read the local state", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const community = (await hooks.communities.findByName("Acme"))!;
    const { promise: created, resolve: onCreated } = Promise.withResolvers<void>();
    const { promise: reconciled, resolve: onReconciled } = Promise.withResolvers<void>();
    let registering: Promise<unknown> | undefined;
    // When reconcile() asks for the platform's list, a registration starts; the list is answered once the
    // platform holds its hook, and the registration's own answer waits until reconcile() is done.
    platform.override = async (req) => {
      if (req.method === "GET" && registering === undefined) {
        registering = hooks.register("Acme", ["user_account"], null, CALLBACK);
        await created;
      }
      return undefined;
    };
    platform.afterCreate = async () => {
      onCreated();
      await reconciled;
    };
    await hooks.reconcile(community, { fix: true, deleteUnknown: true }).finally(onReconciled);
    const response = (await registering) as { entity: { id: string; resources: { self: { ref: string } } } };
    assert.notEqual(await platform.hook(response.entity.id), undefined, "the hook being registered was deleted");
    assert.equal(platform.requests("DELETE").length, 0);
    assert.equal((await hooks.findByWebhookURL(response.entity.resources.self.ref)).length, 1);
  });
});
