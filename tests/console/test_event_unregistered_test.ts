// Send test event in one tab and Unregister in another, at once: the test's page read the hook, the unregister
// deleted it on the platform and here, then the test asked the platform to send. Its answer must say what happened
// (the hook is unregistered), not that the platform deleted it behind the console's back and a reconcile is needed.

import assert from "node:assert/strict";
import { Client, csrfOf, pageError, testEventFields, withHook } from "./_helpers.ts";

Deno.test("Send test event whose hook is unregistered meanwhile (another tab) says it is unregistered, not to reconcile", async () => {
  await withHook(async (t, hook, client) => {
    const fields = await testEventFields(client, hook.id);
    const csrf = csrfOf(await client.text(`/webhooks/${hook.id}`, 200));
    const sandbox = t.app.sandboxApi!;
    const trigger = sandbox.trigger.bind(sandbox);
    // The other tab's Unregister lands between the test's read of the hook and its call to the platform.
    sandbox.trigger = async (options) => {
      sandbox.trigger = trigger;
      const other = new Client(t.origin);
      other.cookies = client.cookies;
      const res = await other.post(`/webhooks/${hook.id}/unregister`, { _csrf: csrf, confirm: "yes" });
      await res.body?.cancel();
      assert.equal(res.headers.get("location"), "/webhooks?notice=unregistered");
      return await trigger(options);
    };
    const res = await client.post(`/webhooks/${hook.id}/test`, fields);
    const body = await res.text();
    const said = pageError(body) ?? "";
    assert.equal(res.status, 404, said);
    assert.match(said, /unregistered/, said);
    assert.doesNotMatch(said, /Reconcile|deleted there/, said);
    assert.equal(await t.app.webhooks.findByID(hook.id), null);
  });
});
