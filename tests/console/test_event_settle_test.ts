// Send test event whose wait for the forward to settle (only so that its page shows how the forward went) fails, a
// store read failing, say: the event was sent, so the answer, and a second submission of the button, land on its
// outcome, and the button's token is not left in progress for a day ("being sent already").

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { testEventFields, withHook } from "./_helpers.ts";

Deno.test("Send test event lands on its outcome when the wait for its forward fails, the button sent again too", async () => {
  await withHook(async (t, hook, client) => {
    await createRelay(t.kv, { allowPrivateNetwork: true }).destinations.add({ url: "https://app.example/all" });
    const form = await testEventFields(client, hook.id);
    assert.ok(form.formToken);
    // The deliveries the wait reads fail from now on.
    t.app.deliveries.list = () => Promise.reject(new Error("the log cannot be read"));
    const started = Date.now();
    const outcomes = [];
    for (let i = 0; i < 2; i++) {
      const res = await client.post(`/webhooks/${hook.id}/test`, form);
      await res.body?.cancel();
      outcomes.push({ status: res.status, location: res.headers.get("location") ?? "" });
    }
    const sent = { status: 303, location: `/webhooks/${hook.id}?notice=triggered&answer=200` };
    assert.deepEqual(outcomes, [sent, sent]);
    assert.ok(Date.now() - started < 10_000, "the second did not wait for an end never recorded");
    assert.equal((await t.app.deliveries.page({ hookId: hook.id })).values.length, 1, "one test event was sent");
  });
});
