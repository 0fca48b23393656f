// reconcile({ fix }) brings a record level with its hook (docs/webhooks-consistency.md,
// "Consistency"): the platform's listing entity is saved into the record. A
// listing entity without a self URL (matched through its id) must not take
// the record's self URL and id away, as update() keeps them: the record would
// no longer be found by its URL, and the hook's postbacks would find none.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, HIJACK, withPlatform } from "./platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";

Deno.test("reconcile({ fix }) bringing a record level with a listing entity without a self URL keeps the record's", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    const ref = String(record.entity.resources?.self?.ref);
    // The hook was disabled behind the record's back (as an update that died after its PUT leaves it).
    await createWebhooks(kv).update(record.id, { enabled: false });
    await hooks.save(record);
    platform.override = async (req, url) => {
      if (req.method !== "GET" || url.pathname !== "/api/core/v3/webhooks") return undefined;
      const list = (await platform.listHooks()).map((hook) => ({ ...hook, resources: {} }));
      return Response.json({ list, links: {} });
    };
    const report = await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true });
    assert.deepEqual(report.matched, [record]);

    const fixed = await hooks.findByID(record.id);
    assert.equal(fixed?.entity.enabled, false, "the record was brought level");
    assert.equal(fixed?.entity.resources?.self?.ref, ref);
    assert.deepEqual(await hooks.findByWebhookURL(ref), [fixed]);
  });
});

Deno.test("reconcile({ fix }) leaves a record changed during its list and changed back: the hook changed with it", async () => {
  await withPlatform(async (kv, platform) => {
    // A platform whose answers carry no time of change: a hook changed and changed back reads as before.
    const timeless = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      if (init?.method !== "PUT" && init?.method !== "POST") return response;
      const text = await response.text();
      const { updated: _, ...entity } = JSON.parse(text.startsWith(HIJACK) ? text.slice(HIJACK.length) : text);
      return Response.json(entity, response);
    };
    const hooks = createWebhooks(kv, { fetch: timeless });
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    // The hook was disabled behind the record's back, long enough ago that no update's marker tells of it.
    await hooks.update(record.id, { enabled: false });
    await hooks.save(record);
    // reconcile lists the hook disabled; while its list is on its way, the owner disables the hook and enables it
    // again: the record is as reconcile read it, the hook is enabled.
    const { promise: toggled, resolve: onToggled } = Promise.withResolvers<void>();
    const { promise: listed, resolve: onListed } = Promise.withResolvers<void>();
    const held = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if ((init?.method ?? "GET") === "GET") {
          onListed();
          await toggled;
        }
        return response;
      },
    });
    const report = held.reconcile({ tenantId: "tenant-acme" }, { fix: true });
    await listed;
    await hooks.update(record.id, { enabled: false });
    const back = await hooks.update(record.id, { enabled: true });
    assert.deepEqual(back, record, "changed back to the very record reconcile read");
    onToggled();
    await report;

    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, true);
    assert.equal((await hooks.findByID(record.id))?.entity.enabled, true, "the hook's older state was saved");
  });
});
