// Rules of SPEC.md and API.md (Module A) that a hand-made mutant of the code
// broke without any test failing: each test here fails on that mutant.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, withKv, withPlatform } from "./platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";
const PLACE = "https://c.example/api/core/v3/places/42";
const OTHER_PLACE = "https://c.example/api/core/v3/places/43";

Deno.test("findByCommunity() throws 'must contain a tenantId' synchronously for a null or empty tenantId too", async () => {
  // A mutant that checked `tenantId === undefined` only let these through to a rejection of another message.
  await withKv((kv) => {
    const hooks = createWebhooks(kv);
    for (const tenantId of [null, ""]) {
      assert.throws(
        () => hooks.findByCommunity({ name: "Acme", tenantId } as never),
        (e: Error) => e.constructor === Error && e.message === "community object must contain a tenantId",
      );
    }
    return Promise.resolve();
  });
});

Deno.test("reconcile() takes a pending entry as the explanation only once it is 60 s old by default (API.md staleAfter)", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    // A registration whose connection broke after the platform made the hook: its pending entry stays.
    const broken = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        await response.body?.cancel();
        throw new TypeError("error sending request: connection reset");
      },
    });
    await broken.register("Acme", ["user_account"], null, CALLBACK).catch(() => {});
    const [entry] = await Array.fromAsync(kv.list<{ startedAt: number }>({ prefix: ["webhook_pending"] }));
    assert.ok(entry, "the broken registration left no pending entry");
    const aged = async (ms: number) => {
      await kv.set(entry.key, { ...entry.value, startedAt: Date.now() - ms });
      const { orphans } = await hooks.reconcile({ tenantId: "tenant-acme" });
      assert.equal(orphans.length, 1);
      return orphans[0].pending;
    };
    assert.equal(await aged(30_000), null, "a 30 s old entry may belong to a registration still running");
    assert.equal((await aged(61_000))?.callback, CALLBACK);
  });
});

Deno.test("findByWebhookURL() answers only records whose self URL is exactly the one asked, not one KV keys alike", async () => {
  // KV writes a lone surrogate as U+FFFD, so these two URLs share an index key; API.md: `self.ref === url`.
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const ref = "https://c.example/api/core/v3/webhooks/7\uFFFD";
    await hooks.save({ id: "h1", tenantId: "t1", entity: { resources: { self: { ref } } } });
    assert.deepEqual(await hooks.findByWebhookURL("https://c.example/api/core/v3/webhooks/7\uD800"), []);
    assert.deepEqual((await hooks.findByWebhookURL(ref)).map((h) => h.id), ["h1"]);
  });
});

Deno.test("reconcile() explains an orphan by a pending entry only with the same callback, object and events", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    // Hooks made by another client for the same callback, older than the interrupted registration's.
    await platform.addHook({ events: ["user_session"], callback: CALLBACK });
    await platform.addHook({ events: ["document"], object: PLACE, callback: CALLBACK });
    const broken = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        await response.body?.cancel();
        throw new TypeError("error sending request: connection reset");
      },
    });
    await broken.register("Acme", ["document"], OTHER_PLACE, CALLBACK).catch(() => {});
    const [entry] = await Array.fromAsync(kv.list<{ startedAt: number }>({ prefix: ["webhook_pending"] }));
    await kv.set(entry.key, { ...entry.value, startedAt: Date.now() - 120_000 });
    const { orphans } = await hooks.reconcile({ tenantId: "tenant-acme" });
    assert.equal(orphans.length, 3);
    const explained = orphans.filter((orphan) => orphan.pending !== null);
    assert.equal(explained.length, 1);
    assert.equal(explained[0].entity.object, OTHER_PLACE);
    assert.deepEqual(explained[0].entity.events, ["document"]);
  });
});

Deno.test("unregister() sends DELETE {base}/api/core/v3/webhooks/{entity.id} with the id as one path segment", async () => {
  // A mutant that left the id unencoded let a stored id with `/../` or `?` address (and delete) another hook.
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [kept] = await platform.listHooks();
    await hooks.save({ id: "odd", tenantId: "tenant-acme", entity: { id: `9999/../${kept.id}` } });
    await hooks.unregister("odd");
    const [del] = platform.requests("DELETE");
    assert.equal(del.path.endsWith(`/api/core/v3/webhooks/9999%2F..%2F${kept.id}`), true, del.path);
    assert.notEqual(await platform.hook(String(kept.id)), undefined, "another hook was deleted");
  });
});

Deno.test("communities.findByName() answers only a community of that name, whatever its name pointer says", async () => {
  // A name pointer left behind (a rename racing the read, an edit by hand) must not make register("Ghost") use Acme's
  // token: a mutant that returned the pointed-to community unchecked survived.
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await kv.set(["community_by_name", "Ghost"], "tenant-acme");
    assert.equal(await hooks.communities.findByName("Ghost"), null);
    await assert.rejects(() => hooks.register("Ghost", ["user_account"], null, CALLBACK), {
      error: "no such community exists: Ghost",
    });
    assert.equal(platform.seen.length, 0);
  });
});
