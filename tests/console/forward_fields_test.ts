// The "Forward to" forms with a field given more than once (a hand-made request, or a page that adds a field to the
// form): the page cannot tell which value the user meant, so it changes nothing and says which field was repeated,
// rather than letting the last value silently win (an enabled destination disabled by `enabled=1&enabled=0`).

import assert from "node:assert/strict";
import fc from "fast-check";
import { csrfOf, withHook } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { addDestination } from "./_forward_forms.ts";

Deno.test("Forward to: Add with 'url' given twice adds nothing and names the field", async () => {
  await withHook(async (t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    const res = await client.post(path, { _csrf: csrf, url: ["https://a.example/in", "https://b.example/in"] });
    const html = await res.text();
    assert.equal(res.status, 400, html.slice(0, 300));
    assert.match(html, /No destination was added: (&#39;|')url(&#39;|') was given 2 times; give one URL/);
    assert.ok(!html.includes('id="forward-secret"'));
    assert.deepEqual(await createRelay(t.kv).destinations.list(), []);
  });
});

Deno.test("Forward to: 'enabled' given more than once (any values) changes nothing and names the field", async () => {
  await withHook(async (t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const id = (await addDestination(client, hook.id, "https://app.example/in")).id;
    const csrf = csrfOf(await client.text(path, 200));
    const relay = createRelay(t.kv);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("0", "1", "", "yes"), { minLength: 2, maxLength: 4 }),
        async (values) => {
          const res = await client.post(`${path}/${id}/enabled`, { _csrf: csrf, enabled: values });
          const html = await res.text();
          assert.equal(res.status, 400, `${JSON.stringify(values)}: ${res.headers.get("location")}`);
          assert.match(
            html,
            new RegExp(`Nothing was changed: (&#39;|')enabled(&#39;|') was given ${values.length} times`),
          );
          assert.equal((await relay.destinations.get(id))?.enabled, true);
        },
      ),
      { numRuns: 25 },
    );
    // The form as the page sends it still acts.
    const off = await client.post(`${path}/${id}/enabled`, { _csrf: csrf, enabled: "0" });
    await off.body?.cancel();
    assert.equal(off.headers.get("location"), `${path}?notice=disabled`);
  });
});
