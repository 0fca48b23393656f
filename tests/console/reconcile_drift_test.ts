// A record that differs from its hook on the platform (an update that died after the platform took its PUT, a
// record restored from a backup): the reconcile page lists it under "Differ", with each field here and there, and
// Apply the fixes saves the platform's fields into it. Before, the page said "Nothing to fix: the platform and the
// console agree" and offered no fix, though the record named a callback the platform no longer posts to.

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";

const PAGE = "/communities/sandbox-tenant/reconcile";

Deno.test("the reconcile page lists a record that differs from its hook on the platform, and the fixes level it", async () => {
  await withHook(async (t, hook, client) => {
    const record = (await t.app.webhooks.findByID(hook.id))!;
    await t.app.webhooks.save({ ...record, entity: { ...record.entity, callback: "https://stale.example/hooks/1" } });
    const html = await client.text(PAGE, 200);
    const page = parse(html);
    let text: string;
    try {
      assert.equal(page.document.querySelector("#drifted-count")?.textContent, "1");
      text = page.document.querySelector("#drifted")!.textContent!.replace(/\s+/g, " ");
      assert.ok(!page.document.querySelector("#nothing-to-fix"), "said to agree"); // an element is never inspected
    } finally {
      page.close();
    }
    assert.match(text, /callback https:\/\/stale\.example\/hooks\/1 here, .* on the platform/);
    assert.ok(text.includes(hook.callback), text);
    const res = await client.post(PAGE, { _csrf: csrfOf(html) });
    assert.equal(res.status, 303, await res.text());
    assert.equal((await t.app.webhooks.findByID(hook.id))?.entity.callback, hook.callback);
    const after = await client.text(`${PAGE}?notice=fixed`, 200);
    assert.match(after, /id="nothing-to-fix"/);
    assert.match(after, /The fixes are applied: .*, 1 record saved as the platform has its hook\./);
  });
});
