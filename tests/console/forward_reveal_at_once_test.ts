// Forward to's secret is shown once, even to two loads of its page at once (a reload while the first load is under
// way, or the page open in two tabs): one of them shows it, the other says it was shown.

import assert from "node:assert/strict";
import { csrfOf, withSignedInHook } from "./_helpers.ts";
import { secretOf } from "./_forward_secret.ts";

Deno.test("Forward to's secret loaded twice at once is shown by one load only", async () => {
  await withSignedInHook({}, async ({ client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    for (let round = 0; round < 4; round++) {
      const res = await client.post(path, {
        _csrf: csrfOf(await client.text(path, 200)),
        url: `https://app.example/in${round}`,
      });
      await res.body?.cancel();
      assert.equal(res.status, 303);
      const location = res.headers.get("location") ?? "";
      const pages = await Promise.all([client.text(location, 200), client.text(location, 200)]);
      const shown = pages.map(secretOf).filter((secret) => secret !== undefined);
      assert.equal(shown.length, 1, `round ${round}: the secret was shown ${shown.length} times`);
    }
  });
});
