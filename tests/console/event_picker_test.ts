/**
 * The events checklist as the server renders it, which is what a browser
 * without JavaScript keeps: no box is greyed out (the island greys out the
 * other kind once it runs; without it the server checks the rule), so a
 * hook's events can be changed to the other kind in one go; and when a form
 * comes back with events of both kinds (refused: they cannot be mixed), every
 * box the user ticked can be unticked and the object typed can be changed.
 */

import assert from "node:assert/strict";
import { parse, placeOf, registerFormFields, registerHook, withSignedIn, withSignedInHook } from "./_helpers.ts";

/** Whether each of `ids` is disabled in `html`. */
function disabledOf(html: string, ids: string[]): Record<string, boolean> {
  const page = parse(html);
  try {
    return Object.fromEntries(
      ids.map((id) => [id, (page.document.querySelector(`#${id}`) as HTMLInputElement | null)?.disabled ?? true]),
    );
  } finally {
    page.close();
  }
}

const TICKED = ["event-document", "event-user_account", "object"];
const NONE_DISABLED = Object.fromEntries(TICKED.map((id) => [id, false]));

Deno.test("a register form refused for mixing system and content events comes back with every ticked box free to untick", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const res = await client.post("/webhooks", {
      ...await registerFormFields(client),
      tenantId: "sandbox-tenant",
      events: ["document", "user_account"],
      object: placeOf(t.origin),
    });
    const html = await res.text();
    assert.equal(res.status, 400);
    assert.match(html, /cannot be mixed/);
    // A disabled box is neither sent nor changed: the user could only send the form again with no event at all.
    assert.deepEqual(disabledOf(html, TICKED), NONE_DISABLED);
  });
});

Deno.test("a webhook's events form refused for mixing both kinds comes back with every ticked box free to untick", async () => {
  await withSignedInHook({ connect: false }, async ({ t, client, hookId: id }) => {
    const page = await client.text(`/webhooks/${id}`, 200);
    const csrf = parse(page);
    const token = (csrf.document.querySelector("input[name=_csrf]") as HTMLInputElement).value;
    csrf.close();
    const res = await client.post(`/webhooks/${id}/events`, {
      _csrf: token,
      events: ["document", "user_account"],
      object: placeOf(t.origin),
    });
    const html = await res.text();
    assert.equal(res.status, 400, html.slice(0, 300));
    assert.deepEqual(disabledOf(html, TICKED), NONE_DISABLED);
  });
});

Deno.test("without JavaScript a hook's events can be changed to the other kind: the server greys out no box", async () => {
  await withSignedInHook({ connect: false }, async ({ t, client, hookId: content }) => {
    const system = await registerHook(client, t.origin, { events: ["user_account"], object: "" });
    assert.deepEqual(
      disabledOf(await client.text(`/webhooks/${content}`, 200), ["event-user_account", "event-document"]),
      { "event-user_account": false, "event-document": false },
    );
    assert.deepEqual(
      disabledOf(await client.text(`/webhooks/${system}`, 200), ["event-document", "object", "event-user_account"]),
      { "event-document": false, object: false, "event-user_account": false },
    );
  });
});
