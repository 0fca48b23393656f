// The sandbox's pages: the index at GET /sandbox with its endpoints, hooks
// and trigger form.

import assert from "node:assert/strict";
import { jive, register, signIn, withSandbox } from "./_mounted.ts";

Deno.test("GET /sandbox shows the index with endpoints, hooks and a trigger form", async () => {
  await withSandbox(async (env) => {
    const empty = await fetch(env.base);
    assert.equal(empty.status, 200);
    const emptyHtml = await empty.text();
    assert.match(emptyHtml, /No webhook is registered yet/);
    assert.match(emptyHtml, /POST \/sandbox\/api\/core\/v3\/webhooks/);
    assert.match(emptyHtml, /<form method="post" action="\/sandbox\/trigger" id="trigger">/);
    const tokens = await signIn(env);
    const entity = await jive(
      await register(env, tokens.access_token, {
        events: ["user_account"],
        callback: "http://127.0.0.1:1/<script>alert(1)</script>",
      }),
    );
    const withSlash = await fetch(`${env.base}/`);
    assert.equal(withSlash.status, 200);
    const html = await withSlash.text();
    assert.match(html, new RegExp(`data-webhook-id="${entity.id}"`));
    assert.ok(!html.includes("<script>alert(1)"), "callback is escaped");
    assert.ok(html.includes("/%3Cscript%3Ealert(1)%3C/script%3E"), "shown as the URL the postback goes to");
    const community = await env.sandbox.communityFor(env.origin);
    assert.ok(!html.includes(community.clientSecret), "no secret on the page");
    assert.ok(html.includes(community.clientId));
  });
});
