// A destination record that is junk in the KV (hand-edited, or written by a buggy older tool) is shown on a hook's
// Forward to page as damaged, saying what is wrong, rather than as a row with a blank URL (docs/relay.md).

import assert from "node:assert/strict";
import { parse, withHook } from "./_helpers.ts";

const ID = "01JZZZZZZZZZZZZZZZZZZZZZZZ";

Deno.test("Forward to: a damaged destination record's row says it is damaged and what is wrong, not a blank", async () => {
  await withHook(async (t, hook, client) => {
    await t.kv.atomic().set(["relay_destination", ID], { nonsense: 1 }).sum(["relay_destinations_version"], 1n)
      .commit();
    const page = parse(await client.text(`/webhooks/${hook.id}/forward`, 200));
    try {
      const row = page.document.querySelector(`tr[data-destination="${ID}"]`);
      assert.ok(row, "the damaged record is listed under its key's id");
      const url = row.querySelector("td")?.textContent ?? "";
      assert.match(url, /damaged record: 'id' is missing; 'url' is missing/, url);
      assert.equal(row.querySelectorAll("td")[2]?.textContent, "damaged");
    } finally {
      page.close();
    }
  });
});
