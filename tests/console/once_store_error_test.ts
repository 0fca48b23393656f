// A one-time button whose token cannot be taken because the store fails: the answer must not claim the button
// expired or was shown to another session (false: the store failed), so the page is the console's error page.

import assert from "node:assert/strict";
import { testEventFields, withHook } from "./_helpers.ts";

Deno.test("Send test event whose token the store fails to take answers an error, not 'this button has expired'", async () => {
  await withHook(async (t, hook, client) => {
    const form = await testEventFields(client, hook.id);
    const atomic = t.kv.atomic;
    t.kv.atomic = () => {
      throw new Error("the store is down");
    };
    try {
      const res = await client.post(`/webhooks/${hook.id}/test`, form);
      const text = await res.text();
      assert.doesNotMatch(text, /this button has expired/);
      assert.equal(res.status, 500);
    } finally {
      t.kv.atomic = atomic;
    }
    assert.equal((await t.app.deliveries.page({ hookId: hook.id })).values.length, 0, "no test event was sent");
  });
});
