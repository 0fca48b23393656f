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

Deno.test("update() takes null options as none, and refuses options that are not an object before any request", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    for (const options of [5, "good-token", true, ["good-token"]]) {
      await assert.rejects(
        () => hooks.update(record, { enabled: false }, options as never),
        (e: Error) => e instanceof TypeError && /'options' must be an object/.test(e.message),
      );
    }
    assert.equal(platform.requests("PUT").length, 0);
    assert.deepEqual(await hooks.findByID(record.id), record);
    const saved = await hooks.update(record, { enabled: false }, null as never);
    assert.equal(saved.entity.enabled, false);
  });
});

Deno.test("register() sends the events it checked: an array whose items change between two reads cannot slip one in", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    // Each read of an item after the first few answers something else: what is sent must be what was checked.
    let reads = 0;
    const shifty = new Proxy(["user_account"], {
      get: (target, key, receiver) => key === "0" && ++reads > 1 ? 42 : Reflect.get(target, key, receiver),
    });
    await hooks.register({ community: "Acme", events: shifty, callback: CALLBACK });
    const [post] = platform.requests("POST");
    assert.deepEqual(JSON.parse(post.body).events, ["user_account"]);
  });
});
