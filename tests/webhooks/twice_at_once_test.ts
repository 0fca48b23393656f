// Module A's state-changing operations called twice at once in one process
// (a double click, a retried job), against the sandbox platform on 127.0.0.1:
// the end state is what one call gives, and neither call fails confusingly.

import assert from "node:assert/strict";
import { createWebhooks, type Webhook } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, keysUnder, withKv, withPlatform } from "./platform.ts";
import { assertCopiesMatch, fixtureRecords, indexForms, writeOldLayout } from "./_old_layout.ts";

const CALLBACK = "https://receiver.example/hooks/1";

function refOf(record: Webhook): string {
  return record.entity.resources!.self!.ref!;
}

Deno.test("unregister() of one record twice at once: both resolve, the hook and the record with both index entries are gone", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    await Promise.all([hooks.unregister(record), hooks.unregister(record)]);
    assert.equal(await platform.hook(FIRST_HOOK_ID), undefined);
    assert.equal(await hooks.findByID(record.id), null);
    assert.deepEqual(await hooks.findByWebhookURL(refOf(record)), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_tenant"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_url"]), []);
    // Each call asks the platform once; the one that comes second finds the hook gone (404), which is no error.
    assert.equal(platform.requests("DELETE").length, 2);
  });
});

Deno.test("unregister() by id twice at once: both resolve and nothing of the record is left", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    await Promise.all([hooks.unregister(record.id), hooks.unregister(record.id)]);
    assert.equal(await platform.hook(FIRST_HOOK_ID), undefined);
    assert.equal(await hooks.findByID(record.id), null);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_tenant"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_url"]), []);
  });
});

Deno.test("update() twice at once with different changes: both apply, and the record holds the hook as the platform has it", async () => {
  await withPlatform(async (kv, platform) => {
    // The first PUT's answer comes back last, after the second update finished.
    const { promise: secondDone, resolve: onSecondDone } = Promise.withResolvers<void>();
    let puts = 0;
    const hooks = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method === "PUT" && ++puts === 1) await secondDone;
        return response;
      },
    });
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    const first = hooks.update(record.id, { enabled: false });
    while (puts === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await hooks.update(record.id, { events: ["user_account", "user_session"] });
    onSecondDone();
    await first;
    const hook = (await platform.hook(FIRST_HOOK_ID))!;
    const stored = (await hooks.findByID(record.id))!;
    assert.equal(stored.entity.enabled, hook.enabled, "the record's enabled is not the platform's");
    assert.deepEqual(stored.entity.events, hook.events, "the record's events are not the platform's");
    // Neither change was lost.
    assert.equal(hook.enabled, false);
    assert.deepEqual(String(hook.events).split(",").map((e) => e.trim()).sort(), ["user_account", "user_session"]);
    assert.deepEqual(await hooks.findByWebhookURL(refOf(record)), [stored]);
  });
});

Deno.test("update() twice at once with the same change: one record, as the platform has the hook", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    await Promise.all([hooks.update(record.id, { enabled: false }), hooks.update(record.id, { enabled: false })]);
    const hook = (await platform.hook(FIRST_HOOK_ID))!;
    const stored = (await hooks.findByID(record.id))!;
    assert.equal(hook.enabled, false);
    assert.equal(stored.entity.enabled, false);
    assert.deepEqual(await hooks.findByTenantID("tenant-acme"), [stored]);
  });
});

Deno.test("migrate() twice at once: every pointer becomes one copy and lookups are right", async () => {
  await withKv(async (kv) => {
    const records = fixtureRecords(1200, 3);
    await writeOldLayout(kv, records);
    const hooks = createWebhooks(kv);
    const reports = await Promise.all([hooks.migrate(), hooks.migrate()]);
    // Each entry is migrated by one of the two runs, never by both.
    assert.equal(reports[0].migrated + reports[1].migrated, 2400);
    assert.equal((await indexForms(kv)).pointers, 0);
    assert.equal(await assertCopiesMatch(kv), 1200);
    assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 1200);
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 1200);
    assert.equal((await hooks.findByTenantID("t1")).length, 400);
    assert.deepEqual((await hooks.findByWebhookURL(refOf(records[7]))).map((r) => r.id), [records[7].id]);
  });
});

Deno.test("save() of one record twice at once, and remove() of it twice at once: one record, then none", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const record = {
      id: "h1",
      tenantId: "t1",
      entity: { id: "7", resources: { self: { ref: "https://c.example/7" } } },
    };
    await Promise.all([hooks.save(record), hooks.save(record)]);
    assert.deepEqual(await hooks.findByTenantID("t1"), [record]);
    assert.deepEqual(await hooks.findByWebhookURL("https://c.example/7"), [record]);
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 1);
    const removed = await Promise.all([hooks.remove("h1"), hooks.remove("h1")]);
    assert.deepEqual(removed.sort(), [false, true]);
    assert.equal(await hooks.findByID("h1"), null);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_tenant"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_url"]), []);
  });
});

Deno.test("communities.save() of one new community twice at once stores one; remove() twice at once removes it once", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" };
    await Promise.all([hooks.communities.save(acme), hooks.communities.save(acme)]);
    assert.deepEqual((await hooks.communities.list()).values, [acme]);
    assert.deepEqual(await hooks.communities.findByName("Acme"), acme);
    const removed = await Promise.all([hooks.communities.remove("t1"), hooks.communities.remove("t1")]);
    assert.deepEqual(removed.sort(), [false, true]);
    assert.equal(await hooks.communities.findByName("Acme"), null);
    assert.deepEqual(await keysUnder(kv, ["community_by_name"]), []);
  });
});

Deno.test("communities.save() of one name for two new tenants at once keeps the name unique", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const results = await Promise.allSettled([
      hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://a.example" }),
      hooks.communities.save({ name: "Acme", tenantId: "t2", baseUrl: "https://a.example" }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.match(refused.reason.message, /already used by another tenant/);
    assert.equal((await hooks.communities.list()).values.length, 1);
  });
});

Deno.test("register() twice at once with the same arguments makes two hooks, each with one record, and leaves no pending entry", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const responses = await Promise.all([
      hooks.register("Acme", ["user_account"], null, CALLBACK),
      hooks.register("Acme", ["user_account"], null, CALLBACK),
    ]);
    // A registration is a create: two calls are two hooks (as two POSTs are), never one hook with two records.
    assert.equal((await platform.listHooks()).length, 2);
    for (const { entity } of responses) {
      assert.equal((await hooks.findByWebhookURL(entity.resources!.self!.ref!)).length, 1);
    }
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 2);
    assert.deepEqual(await hooks.pending("tenant-acme"), []);
  });
});

Deno.test("communities.revokePreviousSecret() twice at once revokes once: one true, one false", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://acme.example", clientId: "c", clientSecret: "s1" };
    await hooks.communities.save(acme);
    await hooks.communities.save({ ...acme, clientSecret: "s2" });
    const revoked = await Promise.all([
      hooks.communities.revokePreviousSecret("t1"),
      hooks.communities.revokePreviousSecret("t1"),
    ]);
    assert.deepEqual(revoked.sort(), [false, true]);
    assert.equal(await hooks.communities.secretRotation("t1"), null);
  });
});
