// A webhook record edited by hand into a damaged one (its entity or tenantId of the wrong type), then unregistered
// or updated by its id: the error says the stored record is damaged and names the field, not that the caller gave
// the wrong argument; nothing is sent to the platform and the record is left as it is.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

const DAMAGED: [Record<string, unknown>, RegExp][] = [
  [
    { id: "h2", tenantId: "tenant-acme", entity: 7 },
    /the stored record "h2" is damaged: its 'entity' must be an object, got 7/,
  ],
  [
    { id: "h2", tenantId: "tenant-acme" },
    /the stored record "h2" is damaged: its 'entity' must be an object, got undefined/,
  ],
  [
    { id: "h2", tenantId: 5, entity: {} },
    /the stored record "h2" is damaged: its 'tenantId' must be a non-empty string, got 5/,
  ],
];

Deno.test("unregister(id) and update(id) of a damaged stored record say so and send nothing", async () => {
  for (const [record, message] of DAMAGED) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      await kv.set(["webhook", "h2"], record);
      await assert.rejects(() => hooks.unregister("h2"), (error: Error) => {
        assert.equal(error.name, "TypeError");
        assert.match(error.message, /^Cannot unregister webhook: /);
        assert.match(error.message, message);
        return true;
      });
      await assert.rejects(() => hooks.update("h2", { enabled: false }), (error: Error) => {
        assert.equal(error.name, "TypeError");
        assert.match(error.message, /^Cannot update webhook: /);
        assert.match(error.message, message);
        return true;
      });
      assert.equal(platform.seen.length, 0);
      assert.deepEqual((await kv.get(["webhook", "h2"])).value, record);
    });
  }
});
