// Console forms refused on paths no other test took: the register form naming an event that no hook can subscribe
// to, and "Send test event" posted for a hook of a community other than the sandbox. Each answers 400 with the
// page's error saying why, and nothing is registered or sent.

import assert from "node:assert/strict";
import { csrfOf, pageError, parse, postRegisterForm, withSignedIn } from "./_helpers.ts";

Deno.test("the register form naming an unknown event answers 400 naming it, and registers nothing", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const res = await postRegisterForm(client, t.origin, { events: ["document", "no_such_event"] });
    const html = await res.text();
    assert.equal(res.status, 400);
    assert.equal(pageError(html), "Unknown event 'no_such_event'");
    assert.deepEqual(await t.app.webhooks.findByTenantID("sandbox-tenant"), []);
    assert.deepEqual(await t.app.webhooks.reconcile({ tenantId: "sandbox-tenant" }), {
      matched: [],
      orphans: [],
      dangling: [],
    });
  });
});

Deno.test("Send test event for a hook of another community than the sandbox answers 400 and sends nothing", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    await t.app.webhooks.communities.save({ name: "Other", tenantId: "tenant-other", baseUrl: "https://o.example" });
    const hook = {
      id: "hook-other",
      tenantId: "tenant-other",
      entity: {
        id: "77",
        events: "document",
        callback: `${t.origin}/hooks/x`,
        resources: { self: { ref: "https://o.example/api/core/v3/webhooks/77" } },
      },
    };
    await t.app.webhooks.save(hook);
    const csrf = csrfOf(await client.text("/webhooks/hook-other", 200));
    const res = await client.post("/webhooks/hook-other/test", { _csrf: csrf, formToken: "x" });
    const html = await res.text();
    assert.equal(res.status, 400);
    assert.equal(pageError(html), "Test events go only to hooks of the sandbox community");
    const deliveries = parse(await client.text("/deliveries", 200));
    try {
      assert.ok(deliveries.document.querySelector("#deliveries-empty"), "a delivery was received");
    } finally {
      deliveries.close();
    }
  });
});
