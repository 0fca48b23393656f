// Calls given an id, tenant id or name too long for a KV key (2048 bytes): no
// record or community can have one (save refuses it with a RangeError), so
// each answers as for one that is absent, as findByID() and findByTenantID()
// do, and changes nothing. KV's own error ("Key too large for read") names no
// argument and tells a caller nothing of what it asked.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { keysUnder, withKv } from "../platform.ts";

const LONG = "x".repeat(5000);

Deno.test("remove(), list({ tenantId }) and pending() given an id or tenant id too long for a KV key answer as for none", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
    const before = await keysUnder(kv, []);
    assert.equal(await hooks.remove(LONG), false);
    assert.deepEqual(await hooks.list({ tenantId: LONG }), { values: [], cursor: "" });
    assert.deepEqual(await hooks.pending(LONG), []);
    assert.deepEqual(await keysUnder(kv, []), before);
  });
});

Deno.test("communities.remove(), update(), storeTokens() and revokePreviousSecret() given a tenant id too long for a KV key answer as for none", async () => {
  await withKv(async (kv) => {
    const { communities } = createWebhooks(kv);
    await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
    const before = await keysUnder(kv, []);
    assert.equal(await communities.remove(LONG), false);
    let called = false;
    assert.equal(
      await communities.update(LONG, (current) => {
        called = true;
        return current;
      }),
      null,
    );
    assert.equal(called, false);
    assert.equal(await communities.storeTokens(LONG, { access_token: "a2", refresh_token: "r2" }), false);
    assert.equal(await communities.revokePreviousSecret(LONG), false);
    assert.equal(await communities.secretRotation(LONG), null);
    assert.deepEqual(await keysUnder(kv, []), before);
  });
});

Deno.test("communities.save() refuses a tenant id too long for the keys of its hooks by name; one stored before can still be removed", async () => {
  await withKv(async (kv) => {
    const { communities } = createWebhooks(kv);
    // Its own key fits (2,040 bytes), but not its previous secret's, its renewal lease's, nor a hook's tenant index:
    // saved, it could never be removed ('Key too large for write'), registered for, or renewed.
    const tenantId = "y".repeat(2030);
    await assert.rejects(communities.save({ name: "Long", tenantId, baseUrl: "https://c.example" }), (e: Error) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(e.message, /^Cannot save community: 'tenantId' is too long/);
      return true;
    });
    assert.deepEqual(await keysUnder(kv, []), []);
    // As an earlier version stored it.
    await kv.atomic().set(["community", tenantId], { name: "Long", tenantId }).set(
      ["community_by_name", "Long"],
      tenantId,
    )
      .commit();
    assert.equal(await communities.remove(tenantId), true);
    assert.deepEqual(await keysUnder(kv, []), []);
    // The longest taken: a hook with a ULID for id is saved for it, and it is removed.
    const longest = "y".repeat(1999);
    await communities.save({ name: "Longest", tenantId: longest, baseUrl: "https://c.example" });
    await createWebhooks(kv).save({ id: "01K0000000000000000000000A", tenantId: longest, entity: {} });
    assert.equal(await communities.remove(longest), true);
  });
});

Deno.test("remove() removes a record whose id fits its own key but not the prefix of its update markers", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    // ["webhook", id] takes 2,048 bytes, ["webhook_update", id] 2,055: past what KV reads (2,049).
    const id = "x".repeat(2037);
    await hooks.save({ id, entity: {} });
    assert.equal(await hooks.remove(id), true);
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});
