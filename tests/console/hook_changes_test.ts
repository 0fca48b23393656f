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
