// A damaged destination's row on the Forward to page keeps its Enable/Disable button; pressed, the relay's `update`
// refuses the damaged record (docs/relay.md). The page must say so, as it does any action it cannot do (a 4xx page
// naming what is wrong and what to do), not answer a 500, and the stored record stays as it was.

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";

const ID = "01JZZZZZZZZZZZZZZZZZZZZZZZ";

Deno.test("Forward to: Disable on a damaged destination is refused with a page saying it is damaged, not a 500", async () => {
  await withHook(async (t, hook, client) => {
    const junk = { nonsense: 1, secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=" };
    await t.kv.atomic().set(["relay_destination", ID], junk).sum(["relay_destinations_version"], 1n).commit();
    const csrf = csrfOf(await client.text(`/webhooks/${hook.id}/forward`, 200));
    for (const enabled of ["0", "1"]) {
      const res = await client.post(`/webhooks/${hook.id}/forward/${ID}/enabled`, { _csrf: csrf, enabled });
      const body = await res.text();
      assert.equal(res.status, 409, `enabled=${enabled}: ${res.status}`);
      const page = parse(body);
      try {
        const text = page.document.body.textContent ?? "";
        assert.match(text, /Nothing was changed: destination 01JZ+'s stored record is damaged \('id' is missing;/);
        assert.match(text, /remove it/);
        assert.doesNotMatch(text, /c2VjcmV0/, "no secret quoted");
      } finally {
        page.close();
      }
    }
    assert.deepEqual((await t.kv.get(["relay_destination", ID])).value, junk, "the stored record untouched");
  });
});
