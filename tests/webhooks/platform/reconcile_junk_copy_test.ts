// A tenant index entry (["webhook_by_tenant", tenantId, id]) edited by hand into an object of the wrong shape (a
// copy without its id, or of another id) while its hook drifted on the platform: reconcile({ fix }) passes over it,
// leaves it as it is, and still brings the tenant's real record level.

import assert from "node:assert/strict";
import { createWebhooks, type Webhook } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

const EDITS: ((record: Webhook) => unknown)[] = [
  (record) => ({ ...record, id: undefined }),
  (record) => ({ tenantId: record.tenantId, entity: record.entity }),
  (record) => ({ ...record, id: 5 }),
  (record) => ({ ...record, id: "other" }),
];

Deno.test("reconcile({ fix }) passes over a tenant index entry of the wrong shape and leaves it", async () => {
  for (const edit of EDITS) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      await hooks.register("Acme", ["user_account"], null, "https://receiver.example/hooks/1");
      const [record] = await hooks.findByTenantID("tenant-acme");
      // The record fell behind its hook (as an update that died after its PUT leaves it), and so did the junk copy.
      const behind = { ...record, entity: { ...record.entity, callback: "https://receiver.example/old" } };
      await hooks.save(behind);
      const at = ["webhook_by_tenant", "tenant-acme", "junk"];
      const junk = edit(behind);
      await kv.set(at, junk);
      const report = await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true });
      assert.deepEqual(report.matched.map((r) => r.id), [record.id], `beside ${JSON.stringify(junk)}`);
      assert.equal((await hooks.findByID(record.id))?.entity.callback, "https://receiver.example/hooks/1");
      assert.deepEqual((await kv.get(at)).value, junk);
    });
  }
});
