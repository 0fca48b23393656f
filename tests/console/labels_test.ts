// Hooks people can recognise: a name and a description per hook, kept by the
// console, shown on its page and in the list, checked, and gone with the hook
// (issue 16).

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";

Deno.test("a hook's name and description are saved, shown on its page and in the list, and checked", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const saved = await client.post(`/webhooks/${id}/label`, {
      _csrf: csrf,
      name: "Orders feed",
      description: "Posts new documents to the orders service",
    });
    await saved.body?.cancel();
    assert.equal(saved.status, 303);
    const page = parse(await client.text(`/webhooks/${id}`, 200));
    try {
      assert.equal(page.document.querySelector("h1")?.textContent, "Webhook “Orders feed”");
      assert.equal(
        page.document.querySelector("#webhook-description")?.textContent,
        "Posts new documents to the orders service",
      );
      assert.equal((page.document.querySelector("#label-name") as HTMLInputElement).value, "Orders feed");
    } finally {
      page.close();
    }
    const list = parse(await client.text("/webhooks", 200));
    try {
      assert.equal(list.document.querySelector(`tr[data-webhook="${id}"] a`)?.textContent, "Orders feed");
    } finally {
      list.close();
    }
    const tooLong = await client.post(`/webhooks/${id}/label`, { _csrf: csrf, name: "x".repeat(81), description: "" });
    assert.equal(tooLong.status, 400);
    assert.match(await tooLong.text(), /The name is 81 characters; at most 80/);
    // Unregistering forgets the label.
    await (await client.post(`/webhooks/${id}/unregister`, { _csrf: csrf, confirm: "yes" })).body?.cancel();
    assert.equal((await t.kv.get(["console_hook_label", id])).value, null);
  });
});
