// reconcile({ fix }) brings a record level with its hook (docs/webhooks.md,
// "Consistency"): the platform's listing entity is saved into the record. A
// listing entity without a self URL (matched through its id) must not take
// the record's self URL and id away, as update() keeps them: the record would
// no longer be found by its URL, and the hook's postbacks would find none.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, withPlatform } from "./platform.ts";

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
