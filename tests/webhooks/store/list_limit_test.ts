// list() of webhooks and of communities given a `limit` that is not a number: a TypeError naming `limit` (as the
// relay's lists say it), not a RangeError, which says the number is out of range; and `cursor: null`, which reads
// the first page.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { withKv } from "../platform.ts";

Deno.test("list() and communities.list() refuse a limit that is not a number with a TypeError naming it", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    for (const [limit, shown] of [["10", '"10"'], [null, "null"], [{}, "an object"], [true, "true"]] as const) {
      await assert.rejects(() => hooks.list({ limit: limit as never }), {
        name: "TypeError",
        message: `Cannot list webhooks: 'limit' must be an integer from 1 to 1000, got ${shown}`,
      });
      await assert.rejects(() => hooks.communities.list({ limit: limit as never }), {
        name: "TypeError",
        message: `Cannot list communities: 'limit' must be an integer from 1 to 1000, got ${shown}`,
      });
    }
    for (const limit of [0, 1001, 2.5, NaN]) {
      await assert.rejects(() => hooks.list({ limit }), { name: "RangeError", message: /'limit' must be an integer/ });
      await assert.rejects(() => hooks.communities.list({ limit }), { name: "RangeError" });
    }
  });
});

Deno.test("list() and communities.list() read the first page given cursor: null", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    for (const id of ["a", "b"]) await hooks.save({ id, tenantId: "t1", entity: {} });
    await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
    const first = await hooks.list({ limit: 1, cursor: null as never });
    assert.deepEqual(first.values.map((h) => h.id), ["a"]);
    assert.deepEqual((await hooks.communities.list({ cursor: null as never })).values.map((c) => c.name), ["Acme"]);
  });
});
