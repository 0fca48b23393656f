// Enabling, disabling and editing a hook's events from its page, through
// the platform's PUT (Module A's update), against the sandbox (issue 16).

import assert from "node:assert/strict";
import { csrfOf, parse, placeOf, trigger, withHook } from "./_helpers.ts";

Deno.test("a hook is disabled and enabled from its page, and its events edited, on the platform", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const off = await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "0" });
    await off.body?.cancel();
    assert.equal(off.headers.get("location"), `/webhooks/${id}?notice=disabled`);
    assert.equal((await t.app.webhooks.findByID(id))!.entity.enabled, false);
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [], "a disabled hook receives nothing");
    const page = parse(await client.text(`/webhooks/${id}`, 200));
    try {
      assert.match(page.document.querySelector("#webhook-state")?.textContent ?? "", /^disabled/);
      assert.equal(page.document.querySelector("#toggle button")?.textContent, "Enable");
    } finally {
      page.close();
    }
    await (await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "1" })).body?.cancel();
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);

    const edited = await client.post(`/webhooks/${id}/events`, {
      _csrf: csrf,
      events: ["document", "discussion"],
      object: placeOf(t.origin),
    });
    await edited.body?.cancel();
    assert.equal(edited.headers.get("location"), `/webhooks/${id}?notice=events-saved`);
    assert.deepEqual((await t.app.webhooks.findByID(id))!.entity.events, ["document", "discussion"]);

    // A mix of system and content events is refused with the reason; nothing changes.
    const refused = await client.post(`/webhooks/${id}/events`, {
      _csrf: csrf,
      events: ["user_account", "document"],
      object: placeOf(t.origin),
    });
    assert.equal(refused.status, 400);
    const refusedHtml = await refused.text();
    assert.match(refusedHtml, /mixes system events \(user_account\) with content events \(document\)/);
    assert.deepEqual((await t.app.webhooks.findByID(id))!.entity.events, ["document", "discussion"]);
    // The form comes back as it was sent, not as stored: the user corrects it rather than typing it again.
    const again = parse(refusedHtml);
    try {
      const checked = [...again.document.querySelectorAll('input[name="events"]')]
        .filter((box) => (box as unknown as { checked: boolean }).checked)
        .map((box) => box.getAttribute("value"));
      assert.deepEqual(checked.sort(), ["document", "user_account"]);
      const object = again.document.querySelector('input[name="object"]') as unknown as { value: string } | null;
      assert.equal(object?.value, placeOf(t.origin));
    } finally {
      again.close();
    }
  });
});

Deno.test("a hook whose community was removed cannot be unregistered; its page offers to forget it here, which removes it", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    assert.equal(await t.app.webhooks.communities.remove("sandbox-tenant"), true);
    const failed = await client.post(`/webhooks/${id}/unregister`, { _csrf: csrf, confirm: "yes" });
    assert.equal(failed.status, 502);
    const page = parse(await failed.text());
    try {
      assert.match(page.document.querySelector("[role=alert], .error")?.textContent ?? "", /Unregistering failed/);
      assert.ok(page.document.querySelector(`#offer-forget form[action="/webhooks/${id}/forget"]`), "the offer");
    } finally {
      page.close();
    }
    assert.ok(await t.app.webhooks.findByID(id), "nothing is forgotten unasked");
    // Without the confirmation field nothing happens.
    const unconfirmed = await client.post(`/webhooks/${id}/forget`, { _csrf: csrf });
    await unconfirmed.body?.cancel();
    assert.ok(await t.app.webhooks.findByID(id));
    const forgotten = await client.post(`/webhooks/${id}/forget`, { _csrf: csrf, confirm: "yes" });
    await forgotten.body?.cancel();
    assert.equal(forgotten.status, 303);
    assert.equal(forgotten.headers.get("location"), "/webhooks?notice=forgotten");
    assert.equal(await t.app.webhooks.findByID(id), null);
    assert.match(await client.text("/webhooks?notice=forgotten", 200), /forgotten here; the platform was not asked/);
  });
});

Deno.test("reconciling a community not connected yet says to connect it first", async () => {
  await withHook(async (t, _hook, client) => {
    await t.app.webhooks.communities.save({ name: "Fresh", tenantId: "fresh", baseUrl: "https://c.example" });
    const res = await client.fetch("/communities/fresh/reconcile");
    const text = await res.text();
    assert.equal(res.status, 502);
    assert.match(text, /no access token.*Connect the community first \(Communities → Fresh → Connect\)/s);
  });
});

Deno.test("a hook's events changed to system ones with its place still in the form (scripts off) are saved, the place left out", async () => {
  // As the register form does: the platform wants no object for system events, and without scripts the field
  // showing the hook's place is sent as it stands.
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const saved = await client.post(`/webhooks/${id}/events`, {
      _csrf: csrf,
      events: ["user_account"],
      object: placeOf(t.origin),
    });
    await saved.body?.cancel();
    assert.equal(saved.headers.get("location"), `/webhooks/${id}?notice=events-saved`);
    const { entity } = (await t.app.webhooks.findByID(id))!;
    assert.deepEqual(entity.events, ["user_account"]);
    assert.equal(entity.object, undefined);
  });
});
