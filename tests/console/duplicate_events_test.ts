// A webhook's events are a set: a request that names one twice (a hand-made form, a script) registers or saves it
// once, on the platform and in the record, and the page does not show "document, document".

import assert from "node:assert/strict";
import { csrfOf, withSignedInHook } from "./_helpers.ts";

Deno.test("register and edit events naming one twice store it once", async () => {
  await withSignedInHook(
    { hook: { events: ["user_account", "user_account", "user_session"] } },
    async ({ t, client, hookId }) => {
      assert.deepEqual((await t.app.webhooks.findByID(hookId))?.entity.events, ["user_account", "user_session"]);
      const page = await client.text(`/webhooks/${hookId}`, 200);
      const res = await client.post(`/webhooks/${hookId}/events`, {
        _csrf: csrfOf(page),
        events: ["user_session", "user_session"],
      });
      assert.equal(res.status, 303, await res.text());
      assert.deepEqual((await t.app.webhooks.findByID(hookId))?.entity.events, ["user_session"]);
    },
  );
});
