// list() of webhooks and communities.list() (API.md's `list(options?)`) given
// options that are not an object: null reads the first page, as no options
// (update() and reconcile() take null so too); a number, string or array is
// a TypeError naming 'options', never a crash inside ("Cannot read
// properties of null") nor options silently dropped.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { withKv } from "../platform.ts";

Deno.test("list() and communities.list() read the first page given null options", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save({ id: "a", tenantId: "t1", entity: {} });
    await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
    assert.deepEqual((await hooks.list(null as never)).values.map((h) => h.id), ["a"]);
    assert.deepEqual((await hooks.communities.list(null as never)).values.map((c) => c.name), ["Acme"]);
  });
});

Deno.test("list() and communities.list() refuse options that are not an object with a TypeError naming them", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save({ id: "a", tenantId: "t1", entity: {} });
    for (const [options, shown] of [[5, "5"], ["t1", '"t1"'], [[], "an array"], [true, "true"]] as const) {
      await assert.rejects(() => hooks.list(options as never), {
        name: "TypeError",
        message: `Cannot list webhooks: 'options' must be an object, got ${shown}`,
      });
      await assert.rejects(() => hooks.communities.list(options as never), {
        name: "TypeError",
        message: `Cannot list communities: 'options' must be an object, got ${shown}`,
      });
    }
  });
});
