// Reconcile killed between removing a dangling record and forgetting its
// "Forward to" destinations (or an Unregister on an earlier version, or a
// record deleted by hand) leaves a destination naming a hook whose record is
// gone: listed on no page, secret and all. A retried reconcile no longer sees
// the record, so its fix also forgets the destinations of every hook that is
// gone, not only of the records it removed itself, as Unregister does (a
// listener's pinned destination of that hook alone too).

import assert from "node:assert/strict";
import { csrfOf, withHook } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { addDestination } from "./_forward_forms.ts";

Deno.test("Reconcile's fix forgets the destinations of a hook whose record was removed before it ran", async () => {
  await withHook(async (t, hook, client) => {
    await t.app.webhooks.save({
      id: "orphan-1",
      tenantId: "sandbox-tenant",
      entity: { id: "9997", resources: { self: { ref: `${t.origin}/sandbox/api/core/v3/webhooks/9997` } } },
    });
    const relay = createRelay(t.kv, { allowPrivateNetwork: true });
    try {
      const alone = await relay.destinations.add({ url: "https://app.example/orphan", hookIds: ["orphan-1"] });
      const shared = await relay.destinations.add({ url: "https://app.example/both", hookIds: [hook.id, "orphan-1"] });
      const pinned = await relay.destinations.add({
        url: "http://localhost:3000/in",
        hookIds: ["orphan-1"],
        pinned: true,
      });
      const kept = await addDestination(client, hook.id, "https://app.example/kept");
      // The killed step: the record went, its destinations stayed.
      await t.app.webhooks.remove("orphan-1");
      const csrf = csrfOf(await client.text("/communities/sandbox-tenant/reconcile", 200));
      const res = await client.post("/communities/sandbox-tenant/reconcile", { _csrf: csrf });
      assert.equal(res.status, 303);
      const left = (await relay.destinations.list()).map((d) => ({ id: d.id, hookIds: d.hookIds }));
      const ids = left.map((d) => d.id);
      assert.ok(!ids.includes(alone.id), "the destination of the gone hook alone is removed");
      assert.deepEqual(left.find((d) => d.id === shared.id)?.hookIds, [hook.id], "the shared one keeps the live hook");
      assert.ok(ids.includes(kept.id), "the live hook's own destination stays");
      assert.ok(!ids.includes(pinned.id), "a listener's destination of the gone hook alone too, as on Unregister");
    } finally {
      await relay.close();
    }
  });
});
