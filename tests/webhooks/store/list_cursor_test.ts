// list() of webhooks and of communities given a cursor of the wrong type.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { withKv } from "../platform.ts";

Deno.test("list() and communities.list() refuse a cursor that is not a string, naming it", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    for (const cursor of [5, {}, true]) {
      await assert.rejects(() => hooks.list({ cursor: cursor as never }), {
        name: "TypeError",
        message: /^Cannot list webhooks: 'cursor' must be a string/,
      });
      await assert.rejects(() => hooks.communities.list({ cursor: cursor as never }), {
        name: "TypeError",
        message: /^Cannot list communities: 'cursor' must be a string/,
      });
    }
    assert.deepEqual(await hooks.list({ cursor: "" }), { values: [], cursor: "" });
  });
});
