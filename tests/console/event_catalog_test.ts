// The event catalog (issue 44): every event a hook can subscribe to, with a
// description and an example payload the sandbox really sends; the register
// form and each hook's page link to it.

import assert from "node:assert/strict";
import { CONTENT_EVENTS, SYSTEM_EVENTS } from "../../webhooks/mod.ts";
import { examplePostback } from "../../sandbox/mod.ts";
import { Client, parse, trigger, withHook } from "./_helpers.ts";

Deno.test("the event catalog lists every event with a description and an example payload; register and hook pages link to it", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    const page = parse(await client.text("/events", 200));
    try {
      const { document } = page;
      for (const name of [...CONTENT_EVENTS, ...SYSTEM_EVENTS]) {
        const section = document.querySelector(`#event-${name}`);
        assert.ok(section, `the catalog has ${name}`);
        assert.ok((section.querySelector(".event-description")?.textContent ?? "").length > 20, `${name} is described`);
        const example = JSON.parse(section.querySelector(`#example-${name}`)?.textContent ?? "");
        assert.ok(Array.isArray(example) && example.length === 1, `${name}'s example is a postback array`);
        assert.match(example[0].webhook, new RegExp(`^${t.origin}/sandbox/api/core/v3/webhooks/\\d+$`));
        assert.match(example[0].activity.verb, /^jive:/);
        assert.equal(Boolean(example[0].activity.target), CONTENT_EVENTS.includes(name), `${name}'s target`);
      }
      assert.match(document.querySelector("#event-user_session")?.textContent ?? "", /jive:user_session_login/);
    } finally {
      page.close();
    }

    // The example is what the sandbox sends: the same keys as a postback a hook received.
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [received] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    const item = JSON.parse((await t.app.deliveries.get(received.id))!.payload);
    const [example] = examplePostback("document", `${t.origin}/sandbox`);
    assert.deepEqual(Object.keys(example.activity).sort(), Object.keys(item.activity).sort());
    assert.deepEqual(Object.keys(example.activity.object as object).sort(), Object.keys(item.activity.object).sort());

    for (const path of ["/webhooks/new", `/webhooks/${id}`]) {
      const html = parse(await client.text(path, 200));
      try {
        assert.equal(html.document.querySelector("#event-catalog-link")?.getAttribute("href"), "/events", path);
      } finally {
        html.close();
      }
    }

    // Signed out, the catalog is a page of the console like the others: sign in first.
    const anonymous = await new Client(t.origin).fetch("/events");
    await anonymous.body?.cancel();
    assert.equal(anonymous.status, 302);
  });
});

Deno.test("an example of an event the platform does not have is refused, naming it", () => {
  assert.throws(() => examplePostback("party", "https://c.example"), /"party" is not an event of the platform/);
});
