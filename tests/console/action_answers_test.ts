// How the actions on a hook and a delivery answer what they cannot do
// (issue 44, defects 10, 11 and 15): a value they do not know is refused and
// changes nothing, an id that names nothing is "not found", and a refused
// test event is shown after a redirect, so that a reload sends nothing again.

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";

/** The text of `selector` on a page. */
function textOf(html: string, selector: string): string {
  const page = parse(html);
  try {
    return page.document.querySelector(selector)?.textContent?.trim() ?? "";
  } finally {
    page.close();
  }
}

Deno.test("POST /webhooks/{id}/enabled refuses a value other than 1 or 0, and leaves the hook as it was", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    for (const enabled of ["maybe", "", "true"]) {
      const res = await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled });
      const body = await res.text();
      assert.equal(res.status, 400, `enabled=${enabled}`);
      assert.equal(
        textOf(body, "[role=alert]"),
        `Nothing was changed: 'enabled' must be 1 (enable) or 0 (disable), got '${enabled}'`,
      );
      assert.notEqual((await t.app.webhooks.findByID(id))!.entity.enabled, false, "the hook stays enabled");
    }
    // Without the field at all, too.
    const res = await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf });
    await res.body?.cancel();
    assert.equal(res.status, 400);
    assert.notEqual((await t.app.webhooks.findByID(id))!.entity.enabled, false);
  });
});

Deno.test("POST /deliveries/{id}/replay of an id that names no delivery answers 404 not found", async () => {
  await withHook(async (_t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const res = await client.post("/deliveries/nope/replay", { _csrf: csrf });
    const body = await res.text();
    assert.equal(res.status, 404);
    assert.equal(textOf(body, "h1"), "Delivery not found");
    assert.match(textOf(body, "[role=alert]"), /^Nothing was replayed: no delivery has the id 'nope'/);
    assert.doesNotMatch(body, /Only an accepted delivery/);
  });
});

Deno.test("Send test event on a disabled hook answers with a redirect, and the page it leads to says why", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    await (await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "0" })).body?.cancel();
    const res = await client.post(`/webhooks/${id}/test`, { _csrf: csrf });
    await res.body?.cancel();
    assert.equal(res.status, 303, "a redirect, so that a reload does not post the form again");
    const location = res.headers.get("location")!;
    assert.equal(location, `/webhooks/${id}?notice=test-disabled`);
    const page = await client.text(location, 200);
    assert.equal(
      textOf(page, "[role=alert]"),
      "No test event was sent: the hook is disabled, so the platform posts nothing to it.",
    );
    const offer = parse(page);
    try {
      const form = offer.document.querySelector("#offer-enable form");
      assert.equal(form?.getAttribute("action"), `/webhooks/${id}/enabled`);
      assert.equal(form?.querySelector("button")?.textContent, "Enable");
    } finally {
      offer.close();
    }
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 0);
    // Once enabled, the same address says nothing of it (the state is read, not taken from the URL).
    await (await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "1" })).body?.cancel();
    assert.equal(textOf(await client.text(location, 200), "[role=alert]"), "");
  });
});
