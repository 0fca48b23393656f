// A webhook's page (issue 24): its actions come before its latest deliveries
// (defect 10), a reload of the unregister confirmation shows it (defect 5),
// and its name refuses bidirectional controls and keeps what was typed when
// it is refused (defect 11).

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";

Deno.test("a webhook's actions come before its deliveries, which show the latest 10 and link to all of them", async () => {
  await withHook(async (t, { id }, client) => {
    for (let i = 0; i < 15; i++) {
      await t.app.deliveries.add(id, [{ webhook: "w", activity: { verb: "jive:created", title: `Delivery ${i}` } }]);
    }
    const page = parse(await client.text(`/webhooks/${id}`, 200));
    try {
      const doc = page.document;
      const actions = doc.querySelector("#webhook-actions")!;
      const table = doc.querySelector("#deliveries-table")!;
      assert.ok(actions && table);
      // DOCUMENT_POSITION_FOLLOWING: the table comes after the actions.
      assert.ok(actions.compareDocumentPosition(table) & 4, "the actions come first");
      assert.equal(actions.querySelector("#edit-link")?.getAttribute("href"), "#edit");
      assert.equal(actions.querySelector("#toggle button")?.textContent, "Disable");
      assert.equal(actions.querySelector("#send-test button")?.textContent, "Send test event");
      assert.equal(actions.querySelector("#unregister-link")?.getAttribute("href"), `/webhooks/${id}/unregister`);
      const rows = [...doc.querySelectorAll("#deliveries-table tbody tr.delivery")];
      assert.equal(rows.length, 10);
      assert.match(rows[0].textContent ?? "", /Delivery 14/);
      assert.equal(doc.querySelector("#all-deliveries")?.getAttribute("href"), `/deliveries?hook=${id}`);
    } finally {
      page.close();
    }
  });
});

Deno.test("GET /webhooks/{id}/unregister (a reload or a bookmark) shows the confirmation, which unregisters", async () => {
  await withHook(async (t, { id }, client) => {
    const html = await client.text(`/webhooks/${id}/unregister`, 200);
    const page = parse(html);
    try {
      const form = page.document.querySelector("form#confirm");
      assert.equal(form?.getAttribute("action"), `/webhooks/${id}/unregister`);
      assert.equal((form?.querySelector("input[name=confirm]") as HTMLInputElement).value, "yes");
    } finally {
      page.close();
    }
    assert.ok(await t.app.webhooks.findByID(id), "a GET changes nothing");
    const done = await client.post(`/webhooks/${id}/unregister`, { _csrf: csrfOf(html), confirm: "yes" });
    await done.body?.cancel();
    assert.equal(done.headers.get("location"), "/webhooks?notice=unregistered");
    assert.equal(await t.app.webhooks.findByID(id), null);
    // Once gone, the confirmation's URL says so.
    assert.match(await client.text(`/webhooks/${id}/unregister`, 404), /unregistered already/);
  });
});

Deno.test("a reload of an action's URL shows the webhook's page, not a 404", async () => {
  await withHook(async (_t, { id }, client) => {
    for (const action of ["label", "events", "enabled", "test"]) {
      const res = await client.fetch(`/webhooks/${id}/${action}`);
      await res.body?.cancel();
      assert.equal(res.status, 302, action);
      assert.equal(res.headers.get("location"), `/webhooks/${id}`);
    }
  });
});

Deno.test("a name with bidirectional controls is refused with a message, and the form keeps the rest", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const res = await client.post(`/webhooks/${id}/label`, {
      _csrf: csrf,
      name: "invoice\u202Efdp.exe",
      description: "from \u2066accounts\u2069",
    });
    const page = parse(await res.text());
    try {
      assert.equal(res.status, 400);
      const error = page.document.querySelector("[role=alert]")?.textContent ?? "";
      assert.match(error, /may not hold bidirectional control characters \(U\+202E, U\+2066, U\+2069\)/);
      assert.equal((page.document.querySelector("#label-name") as HTMLInputElement).value, "invoicefdp.exe");
      assert.equal(page.document.querySelector("#label-description")?.textContent, "from accounts");
    } finally {
      page.close();
    }
    assert.equal((await t.kv.get(["console_hook_label", id])).value, null, "nothing is saved");
  });
});

Deno.test("a name over the limit is refused with Name and Description kept as typed", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    await (await client.post(`/webhooks/${id}/label`, { _csrf: csrf, name: "Old", description: "Old text" })).body
      ?.cancel();
    const name = "n".repeat(81);
    const res = await client.post(`/webhooks/${id}/label`, { _csrf: csrf, name, description: "What I typed" });
    const page = parse(await res.text());
    try {
      assert.equal(res.status, 400);
      assert.match(page.document.querySelector("[role=alert]")?.textContent ?? "", /The name is 81 characters/);
      assert.equal((page.document.querySelector("#label-name") as HTMLInputElement).value, name);
      assert.equal(page.document.querySelector("#label-description")?.textContent, "What I typed");
    } finally {
      page.close();
    }
    assert.deepEqual((await t.kv.get(["console_hook_label", id])).value, { name: "Old", description: "Old text" });
  });
});

Deno.test("a community name with bidirectional controls is refused", async () => {
  await withHook(async (t, _hook, client) => {
    const csrf = csrfOf(await client.text("/communities/new", 200));
    const res = await client.post("/communities", {
      _csrf: csrf,
      name: "Acme\u202Eevil",
      tenantId: "acme",
      baseUrl: "https://acme.example.com",
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /may not hold bidirectional control characters \(U\+202E\)/);
    assert.equal(await t.app.webhooks.communities.findByTenantID("acme"), null);
  });
});
