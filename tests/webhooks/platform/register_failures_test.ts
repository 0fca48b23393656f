// What a failed save or a lost answer leaves: register() cleans up on the
// platform or keeps its pending entry for reconcile(), a failing community
// lookup rejects, and update() puts the hook back when it cannot save.

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("register() deletes the hook on the platform again when the save fails, then rejects with the save error", async () => {
  await withPlatform(async (kv, platform) => {
    platform.afterCreate = (entity) => {
      entity.description = "x".repeat(70_000); // too large for one KV value
    };
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK), RangeError);
    const [del] = platform.requests("DELETE");
    assert.equal(del.path, `/api/core/v3/webhooks/${FIRST_HOOK_ID}`);
    assert.equal(del.authorization, "Bearer good-token");
    assert.equal((await platform.listHooks()).length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});

Deno.test("register() keeps the pending entry when the save fails and the clean-up cannot reach the platform", async () => {
  await withPlatform(async (kv, platform) => {
    platform.afterCreate = (entity) => {
      entity.description = "x".repeat(70_000);
    };
    platform.override = (req) => req.method === "DELETE" ? new Response("down", { status: 503 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK), RangeError);
    assert.equal((await platform.listHooks()).length, 1);
    const [pending] = await hooks.pending("tenant-acme");
    assert.deepEqual({ ...pending, id: "", startedAt: 0 }, {
      id: "",
      startedAt: 0,
      tenantId: "tenant-acme",
      community: "Acme",
      events: ["document"],
      object: PLACE,
      callback: CALLBACK,
    });
  });
});

Deno.test("register() propagates a failing community lookup as a rejection", async () => {
  const kv = await Deno.openKv(":memory:");
  const hooks = createWebhooks(kv);
  kv.close();
  await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK));
});

Deno.test("register() rejects a 2xx answer without an entity, keeping the pending entry for reconcile", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (req) => req.method === "POST" ? new Response("[]", { status: 200 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) => e instanceof PlatformError && e.status === 200 && /holds no webhook entity/.test(e.message),
    );
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.equal((await hooks.pending("tenant-acme")).length, 1);
  });
});

Deno.test("register() keeps the pending entry when the connection drops after the platform got the request", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method !== "POST") return response;
        await response.body?.cancel();
        throw new TypeError("error sending request: connection closed before message completed");
      },
    });
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) => e.status === 0 && e.uncertain && /connection closed/.test(e.message),
    );
    assert.equal((await platform.listHooks()).length, 1);
    const community = (await hooks.communities.findByName("Acme"))!;
    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.equal(report.orphans.length, 1);
    assert.equal(report.orphans[0].pending?.callback, CALLBACK);
    assert.equal((await hooks.findByWebhookURL(`${platform.url}/api/core/v3/webhooks/${FIRST_HOOK_ID}`)).length, 1);
  });
});

Deno.test("update() puts the hook back on the platform when its record cannot be saved, then rejects", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    // The same KV, but every commit fails from now on (a full disk, say).
    const broken = createWebhooks(
      new Proxy(kv, {
        get(target, prop) {
          if (prop === "atomic") {
            return () => Object.assign(target.atomic(), { commit: () => Promise.reject(new Error("disk full")) });
          }
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    );
    await assert.rejects(() => broken.update(record.id, { enabled: false }), /disk full/);
    const puts = platform.requests("PUT");
    assert.deepEqual(puts.map((put) => JSON.parse(put.body).enabled), [false, true]);
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, true);
    assert.equal((await hooks.findByID(record.id))?.entity.enabled, true);
  });
});

Deno.test("every platform operation and community lookup settles as a rejection when the store fails", async () => {
  // PLATFORM.md's lesson: the original SDK's register never settled when the community lookup failed.
  const kv = await Deno.openKv(":memory:");
  const hooks = createWebhooks(kv);
  const ref = "https://c.example/api/core/v3/webhooks/1";
  const record = { id: "r1", tenantId: "t1", entity: { id: "1", resources: { self: { ref } } } };
  kv.close();
  const calls: [string, () => Promise<unknown>][] = [
    ["unregister(record)", () => hooks.unregister(record)],
    ["unregister(id)", () => hooks.unregister("r1")],
    ["update", () => hooks.update(record, { enabled: false })],
    ["reconcile", () => hooks.reconcile({ tenantId: "t1" })],
    ["findWebhookCommunity", () => hooks.findWebhookCommunity(record)],
    ["findByCommunity", () => hooks.findByCommunity({ tenantId: "t1" })],
    ["communities.findByName", () => hooks.communities.findByName("Acme")],
  ];
  for (const [name, call] of calls) await assert.rejects(call, Error, name);
});
