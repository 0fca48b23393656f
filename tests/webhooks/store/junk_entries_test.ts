// Stored entries edited by hand into junk (a number, null, a string, a list, an object of another shape, a record
// under another id's key) are passed over by every list of records and of communities, never handed back as if
// they were records, and left as they are.

import assert from "node:assert/strict";
import fc from "fast-check";
import { type Community, createWebhooks, type Webhook } from "../../../webhooks/mod.ts";
import { withKv } from "../platform.ts";

const HOOK: Webhook = { id: "h1", tenantId: "t1", entity: { resources: { self: { ref: "https://c.example/w/1" } } } };
const ACME: Community = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example" };

/** Junk a hand edit could leave: a string is also what an index entry of the earlier layout (a pointer) holds. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.string(),
  fc.constant("h1"),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3, noNullPrototype: true }),
  fc.constant({ ...HOOK }),
  fc.constant({ ...HOOK, id: "other" }),
  fc.constant({ ...ACME }),
  fc.constant({ ...ACME, tenantId: "t2" }),
);

Deno.test("list() and list({ tenantId }) pass over a junk record or index entry and leave it as it is", async () => {
  await fc.assert(
    fc.asyncProperty(junk, junk, async (primary, indexed) => {
      await withKv(async (kv) => {
        const hooks = createWebhooks(kv);
        await hooks.save(HOOK);
        await kv.set(["webhook", "j1"], primary);
        await kv.set(["webhook_by_tenant", "t1", "j1"], indexed);
        assert.deepEqual((await hooks.list()).values, [HOOK]);
        assert.deepEqual((await hooks.list({ tenantId: "t1" })).values, [HOOK]);
        assert.deepEqual(await hooks.findByTenantID("t1"), [HOOK]);
        assert.equal(await hooks.findByID("j1"), null);
        assert.deepEqual((await kv.get(["webhook", "j1"])).value, primary);
        assert.deepEqual((await kv.get(["webhook_by_tenant", "t1", "j1"])).value, indexed);
      });
    }),
    { numRuns: 60 },
  );
});

Deno.test("communities.list() passes over a junk community entry and leaves it as it is", async () => {
  await fc.assert(
    fc.asyncProperty(junk, async (value) => {
      await withKv(async (kv) => {
        const { communities } = createWebhooks(kv);
        await communities.save(ACME);
        await kv.set(["community", "j1"], value);
        assert.deepEqual((await communities.list()).values, [ACME]);
        assert.equal(await communities.findByTenantID("j1"), null);
        assert.deepEqual((await kv.get(["community", "j1"])).value, value);
      });
    }),
    { numRuns: 60 },
  );
});
