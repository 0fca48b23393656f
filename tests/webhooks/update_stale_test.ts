// update() given a record read earlier (from a list, say) while another
// update saved the hook since: the change goes over the hook as it is stored
// now, not over the copy in hand, so the other update's change is not undone.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, withPlatform } from "./platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";

Deno.test("update() of a record read before another update keeps that update's change", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [held] = await hooks.findByTenantID("tenant-acme");
    await hooks.update(held.id, { events: ["user_account", "user_session"] });
    const saved = await hooks.update(held, { enabled: false });
    const hook = (await platform.hook(FIRST_HOOK_ID))!;
    const events = (value: unknown) => String(value).split(",").map((e) => e.trim()).sort();
    assert.equal(hook.enabled, false);
    assert.deepEqual(events(hook.events), ["user_account", "user_session"], "the first update's events were undone");
    assert.deepEqual(events(saved.entity.events), ["user_account", "user_session"]);
    assert.deepEqual(await hooks.findByID(held.id), saved);
  });
});

Deno.test("update() of a record that is not stored sends the hook as given", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [held] = await hooks.findByTenantID("tenant-acme");
    await hooks.remove(held.id);
    const saved = await hooks.update(held, { enabled: false });
    assert.equal((await platform.hook(FIRST_HOOK_ID))!.enabled, false);
    assert.equal(saved.entity.enabled, false);
  });
});
