// A record saved by hand under an id that fits its own keys but not its update marker's (["webhook_update", id,
// a UUID], some 50 bytes more) could not be updated: update() failed on setting the marker with KV's "Key too large
// for write (max 2048 bytes)", naming nothing the caller gave. It is refused before any request, by name: the
// platform's answer could not be stored under such an id either (its self URL indexes it), so nothing is sent.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, keysUnder, withPlatform } from "./platform.ts";

Deno.test("update() of a hand-saved record whose id is too long for its update marker's key is refused by name", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, "https://receiver.example/hooks/1");
    const [registered] = await hooks.findByTenantID("tenant-acme");
    // Saved by its hook's id alone (no self URL to index): the id fits the record's keys and the tenant index's.
    const id = "x".repeat(1_995);
    await hooks.save({ ...registered, id, entity: { ...registered.entity, resources: undefined } });
    const stored = await hooks.findByID(id);
    const before = await keysUnder(kv, []);

    const error = await hooks.update(id, { enabled: false }).then(() => null, (e) => e);
    assert.ok(error instanceof RangeError, String(error));
    assert.match(error.message, /^Cannot update webhook: 'id' is too long/);
    assert.equal(platform.requests("PUT", `/api/core/v3/webhooks/${FIRST_HOOK_ID}`).length, 0, "nothing was sent");
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, true);
    assert.deepEqual(await hooks.findByID(id), stored, "the record is still there and readable");
    assert.deepEqual(await keysUnder(kv, []), before, "nothing was written");
    // An id that fits goes on as before.
    assert.equal((await hooks.update(registered.id, { enabled: false })).entity.enabled, false);
  });
});
