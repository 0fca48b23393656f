// An update marker (["webhook_update", recordId, id]) edited by hand into junk: update() passes over it, so the
// change reaches both the platform and the record, and the junk is left as it is (KV expires markers on its own).

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

const JUNK: unknown[] = [null, 5, "x", [], {}, { startedAt: "0" }, { startedAt: null }];

Deno.test("update() over a junk update marker saves its change and leaves the marker", async () => {
  for (const junk of JUNK) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      await hooks.register("Acme", ["user_account"], null, "https://receiver.example/hooks/1");
      const [record] = await hooks.findByTenantID("tenant-acme");
      const at = ["webhook_update", record.id, "junk"];
      await kv.set(at, junk);
      const saved = await hooks.update(record.id, { enabled: false });
      const beside = `beside ${JSON.stringify(junk)}`;
      assert.equal(saved.entity.enabled, false, beside);
      assert.equal((await hooks.findByID(record.id))?.entity.enabled, false, beside);
      assert.equal((await platform.listHooks())[0].enabled, false, beside);
      assert.deepEqual((await kv.get(at)).value, junk, beside);
    });
  }
});
