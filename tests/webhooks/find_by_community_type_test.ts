// SPEC.md 4.2: findByCommunity's argument validation throws synchronously. A
// community whose tenantId is there but is no string (a number, an object) is
// a bad argument too: it throws at once, naming the field, instead of turning
// into a rejected promise from the lookup underneath.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { withKv } from "./platform.ts";

Deno.test("findByCommunity() throws a TypeError synchronously, naming tenantId, when it is not a string", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save({ id: "h1", tenantId: "42", entity: {} });
    for (const tenantId of [42, true, {}, ["42"]]) {
      assert.throws(
        () => hooks.findByCommunity({ name: "Acme", tenantId } as never),
        (e: Error) => {
          assert.ok(e instanceof TypeError, `${JSON.stringify(tenantId)}: ${e}`);
          assert.match(e.message, /^community object's tenantId must be a string, got /);
          return true;
        },
      );
    }
    assert.deepEqual((await hooks.findByTenantID("42")).map((h) => h.id), ["h1"]);
  });
});
