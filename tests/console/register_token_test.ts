// The register form's one-time token (issue 43 item 5): it is required and
// bound to the session the form was shown to. A submission without one, with
// a made-up one, or with one shown to another session registers nothing and
// gets the form back with its own message, the values typed kept, and a
// fresh token that works.

import assert from "node:assert/strict";
import { parse, placeOf, registerFormFields as hiddenFields, signIn, withSignedIn } from "./_helpers.ts";

const REFUSED = /^This form has expired or was opened in another session: check the values below and register again$/;

/** What a refused form shows: its error, the values kept, and its fresh token. */
function refusedPage(html: string) {
  const page = parse(html);
  try {
    const d = page.document;
    return {
      error: d.querySelector(".error")?.textContent ?? "",
      callback: (d.querySelector("#callback") as HTMLInputElement | null)?.value,
      checked: [...d.querySelectorAll("input[name=events]")]
        .filter((e) => (e as HTMLInputElement).checked).map((e) => (e as HTMLInputElement).value),
      community: (d.querySelector("#community option[selected]") as HTMLOptionElement | null)?.value,
      formToken: (d.querySelector("#register input[name=formToken]") as HTMLInputElement | null)?.value ?? "",
    };
  } finally {
    page.close();
  }
}

const typed = (origin: string) => ({
  tenantId: "sandbox-tenant",
  events: ["document", "discussion"],
  object: placeOf(origin),
  callback: "https://receiver.example/hooks/typed",
});

Deno.test("a register form without its one-time token is refused with the form's message, values kept", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const { _csrf } = await hiddenFields(client);
    for (let i = 0; i < 2; i++) {
      const res = await client.post("/webhooks", { _csrf, ...typed(t.origin) });
      assert.equal(res.status, 400);
      const shown = refusedPage(await res.text());
      assert.match(shown.error, REFUSED);
      assert.equal(shown.callback, "https://receiver.example/hooks/typed");
      assert.deepEqual(shown.checked.sort(), ["discussion", "document"]);
      assert.equal(shown.community, "sandbox-tenant");
    }
    assert.equal((await t.app.webhooks.list()).values.length, 0, "two submissions without a token made no hook");
  });
});

Deno.test("a made-up one-time token is refused, and the fresh token of the refused form registers once", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const { _csrf } = await hiddenFields(client);
    const res = await client.post("/webhooks", { _csrf, formToken: "A".repeat(65), ...typed(t.origin) });
    assert.equal(res.status, 400);
    const shown = refusedPage(await res.text());
    assert.match(shown.error, REFUSED);
    assert.equal((await t.app.webhooks.list()).values.length, 0);

    const fields = { _csrf, formToken: shown.formToken, ...typed(t.origin) };
    const first = await client.post("/webhooks", fields);
    await first.body?.cancel();
    assert.equal(first.status, 303);
    assert.match(first.headers.get("location")!, /\?notice=registered$/);
    const again = await client.post("/webhooks", fields);
    await again.body?.cancel();
    assert.match(again.headers.get("location")!, /\?notice=already-registered$/);
    assert.equal((await t.app.webhooks.list()).values.length, 1);
  });
});

Deno.test("a one-time token shown to another session is refused", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const other = await signIn(t.origin);
    const { formToken } = await hiddenFields(other);
    const { _csrf } = await hiddenFields(client);
    const res = await client.post("/webhooks", { _csrf, formToken, ...typed(t.origin) });
    assert.equal(res.status, 400);
    assert.match(refusedPage(await res.text()).error, REFUSED);
    assert.equal((await t.app.webhooks.list()).values.length, 0);
    // The other session's own form still works with it.
    const mine = await other.post("/webhooks", { ...(await hiddenFields(other)), ...typed(t.origin) });
    await mine.body?.cancel();
    assert.equal(mine.status, 303);
  });
});
