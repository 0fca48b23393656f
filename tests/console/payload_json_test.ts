// A signed postback's JSON as the console's delivery page shows it: an item
// nested hundreds of levels deep (within the receiver's 1,000) with many
// values must not turn its indented view into a page hundreds of times the
// payload's size; the Raw view stays the payload as stored.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { parse, withHook } from "./_helpers.ts";

Deno.test("a deeply nested item's page stays within a few times its payload, both views faithful", async () => {
  await withHook(async (t, hook, client) => {
    const c = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const header = await signJiveExtn(
      { clientId: c.clientId!, jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant" },
      c.clientSecret!,
    );
    // 490 levels, then 10,000 numbers: a 24 kB item, each number on a line of its own at 980 spaces when indented.
    const deep = "[".repeat(490) + Array(10_000).fill(0).join(",") + "]".repeat(490);
    const body = `[{"webhook":${JSON.stringify(hook.ref)},"activity":{"verb":"jive:created","x":${deep}}}]`;
    const res = await fetch(hook.callback, { method: "POST", headers: { authorization: header }, body });
    assert.equal(res.status, 200, await res.text());
    const cookie = `cw_session=${client.cookies.get("cw_session")}`;
    const { values } = await (await t.app.app.request("/deliveries.json", { headers: { cookie } })).json();
    assert.equal(values.length, 1);
    const html = await client.text(`/deliveries/${values[0].id}`, 200);
    const payloadLength = JSON.stringify(JSON.parse(body)[0]).length;
    assert.ok(html.length < 4 * payloadLength + 100_000, `a page of ${html.length} characters for ${payloadLength}`);
    const page = parse(html);
    try {
      const raw = page.document.querySelector("#payload")?.textContent ?? "";
      assert.deepEqual(JSON.parse(raw), JSON.parse(body)[0]);
      const pretty = page.document.querySelector("#payload-pretty")?.textContent ?? "";
      assert.deepEqual(JSON.parse(pretty), JSON.parse(body)[0]);
    } finally {
      page.close();
    }
  });
});
