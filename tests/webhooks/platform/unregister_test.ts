// unregister(): the platform's DELETE then the local record, a hook already
// gone (404), a refusal, and token renewal.

import assert from "node:assert/strict";
import { createWebhooks, type TokenPair } from "../../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("unregister() DELETEs the hook on the platform, then the local record", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const { entity } = await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    const [record] = await hooks.findByWebhookURL(entity.resources!.self!.ref!);
    await hooks.unregister(record);
    const [del] = platform.requests("DELETE");
    assert.equal(del.path, `/api/core/v3/webhooks/${entity.id}`);
    assert.equal(del.authorization, "Bearer good-token");
    assert.equal((await platform.listHooks()).length, 0);
    assert.equal(await hooks.findByID(record.id), null);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_url"]), []);
  });
});

Deno.test("unregister() removes the local record when the platform no longer has the hook (404)", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const { entity } = await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    for (const hook of await platform.listHooks()) await platform.removeHook(String(hook.id));
    const [record] = await hooks.findByTenantID("tenant-acme");
    await hooks.unregister(record.id);
    assert.equal(await hooks.findByID(record.id), null);
    assert.equal(entity.id, FIRST_HOOK_ID);
  });
});

Deno.test("unregister() keeps the local record when the platform refuses, and rejects", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    platform.override = (req) =>
      req.method === "DELETE" ? Response.json({ error: { status: 500, message: "x" } }, { status: 500 }) : undefined;
    const [record] = await hooks.findByTenantID("tenant-acme");
    await assert.rejects(() => hooks.unregister(record), { status: 500, method: "DELETE" });
    assert.deepEqual(await hooks.findByID(record.id), record);
  });
});

Deno.test("unregister() renews the token on a 401 and uses the explicit one when given", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    await platform.revokeToken("good-token");
    const [record] = await hooks.findByTenantID("tenant-acme");
    const renewed: TokenPair[] = [];
    await hooks.unregister(record, "explicit", "good-refresh", (tokens) => void renewed.push(tokens));
    assert.deepEqual(platform.requests("DELETE").map((d) => d.authorization), [
      "Bearer explicit",
      `Bearer ${platform.issued[0].access_token}`,
    ]);
    assert.equal(renewed.length, 1);
    assert.equal(await hooks.findByID(record.id), null);
  });
});

Deno.test("unregister() of null or undefined is a TypeError naming what it takes, not an unknown id", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    for (const [bad, shown] of [[null, "null"], [undefined, "undefined"]] as const) {
      await assert.rejects(() => hooks.unregister(bad as never), {
        name: "TypeError",
        message: `Cannot unregister webhook: it must be a record with an entity or its id, got ${shown}`,
      });
    }
    await assert.rejects(() => hooks.unregister(5 as never), {
      name: "TypeError",
      message: "Cannot unregister webhook: it must be a record with an entity or its id, got 5",
    });
    // An id no record has stays an Error that names the id.
    await assert.rejects(() => hooks.unregister("nope"), {
      message: 'Cannot unregister webhook: no webhook has the id "nope"',
    });
    assert.equal(platform.seen.length, 0);
  });
});

Deno.test("update() of null, undefined or a number is a TypeError naming what it takes, before any request", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    for (const [bad, shown] of [[null, "null"], [undefined, "undefined"], [5, "5"]] as const) {
      await assert.rejects(() => hooks.update(bad as never, { enabled: false }), {
        name: "TypeError",
        message: `Cannot update webhook: it must be a record with an entity or its id, got ${shown}`,
      });
    }
    await assert.rejects(() => hooks.update("nope", { enabled: false }), {
      message: 'Cannot update webhook: no webhook has the id "nope"',
    });
    assert.equal(platform.seen.length, 0);
  });
});
