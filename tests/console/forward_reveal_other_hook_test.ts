// Forward to's reveal is bound to the hook it was added to: its address opened on another hook's page (a link
// edited, a tab mixed up) shows nothing and spends nothing, and the secret still shows on its own hook's page.

import assert from "node:assert/strict";
import { csrfOf, registerHook, withSignedInHook } from "./_helpers.ts";
import { secretOf } from "./_forward_secret.ts";

Deno.test("Forward to's reveal opened on another hook's page shows no secret and leaves it to its own page", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const other = await registerHook(client, t.origin);
    const url = "https://app.example/in";
    // The same destination on both hooks: a reveal taken on the wrong page would find it there too.
    for (const id of [other, hookId]) {
      const path = `/webhooks/${id}/forward`;
      const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url });
      await res.body?.cancel();
      assert.equal(res.status, 303);
      if (id === other) {
        assert.match(secretOf(await client.text(res.headers.get("location") ?? "", 200)) ?? "", /^whsec_/);
        continue;
      }
      const location = res.headers.get("location") ?? "";
      const wrong = location.replace(`/webhooks/${hookId}/`, `/webhooks/${other}/`);
      assert.notEqual(wrong, location);
      assert.equal(secretOf(await client.text(wrong, 200)), undefined, "shown on another hook's page");
      assert.match(secretOf(await client.text(location, 200)) ?? "", /^whsec_/, "its own page still shows it");
    }
  });
});
