// update() and unregister() of one hook at the same time: a hook that is gone
// does not come back as a local record.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, withPlatform } from "../platform.ts";

Deno.test("update() whose answer comes after unregister() removed the record does not bring the record back", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, "https://receiver.example/hooks/1");
    const [record] = await hooks.findByTenantID("tenant-acme");
    const hook = (await platform.hook(FIRST_HOOK_ID))!;
    const { promise: putSeen, resolve: onPut } = Promise.withResolvers<void>();
    const { promise: unregistered, resolve: onUnregistered } = Promise.withResolvers<void>();
    // The platform takes the PUT, then the DELETE, and the PUT's answer arrives last.
    platform.override = async (req) => {
      if (req.method !== "PUT") return undefined;
      onPut();
      await unregistered;
      return Response.json({ ...hook, enabled: false });
    };
    const updating = hooks.update(record.id, { enabled: false });
    await putSeen;
    await hooks.unregister(record.id);
    onUnregistered();
    await assert.rejects(updating, /removed/);
    assert.equal(await hooks.findByID(record.id), null);
    assert.deepEqual(await hooks.findByTenantID("tenant-acme"), []);
    const ref = (hook as { resources: { self: { ref: string } } }).resources.self.ref;
    assert.deepEqual(await hooks.findByWebhookURL(ref), []);
  });
});
