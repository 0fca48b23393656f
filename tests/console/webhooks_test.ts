import assert from "node:assert/strict";
import {
  collectPages,
  csrfOf,
  parse,
  placeOf,
  registerFormFields,
  registerHook,
  signIn,
  startConsole,
  trigger,
  withHook,
  withSignedIn,
} from "./_helpers.ts";
import { signJiveExtn } from "../../webhooks/mod.ts";

Deno.test("registering a webhook with the default callback points it at this console's receiver", async () => {
  const t = await startConsole();
  try {
    // The sandbox community is pre-connected: no connect step is needed.
    const client = await signIn(t.origin);
    const id = await registerHook(client, t.origin);
    const record = await t.app.webhooks.findByID(id);
    assert.equal(record?.tenantId, "sandbox-tenant");
    const callback = String(record?.entity.callback);
    assert.match(callback, new RegExp(`^${t.origin}/hooks/[0-9A-Z]{26}$`));
    assert.notEqual(callback, `${t.origin}/hooks/${id}`);

    const html = await client.text(`/webhooks/${id}?notice=registered`, 200);
    const page = parse(html);
    try {
      assert.equal(page.document.querySelector("#webhook-callback")?.textContent, callback);
      assert.equal(
        page.document.querySelector("#webhook-url")?.textContent,
        record?.entity.resources?.self?.ref,
      );
      assert.equal(page.document.querySelector("#webhook-events")?.textContent, "document");
      assert.ok(page.document.querySelector("#entity")?.textContent?.includes('"callback"'));
      assert.equal(page.document.querySelector("[data-island=DeliveriesLive]") !== null, true);
    } finally {
      page.close();
    }
    // The platform delivers to it.
    assert.deepEqual(await trigger(t.origin, { webhookId: String(record?.entity.id) }), [200]);
  } finally {
    await t.close();
  }
});

Deno.test("a register form that mixes system and content events is refused before any call", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const fields = await registerFormFields(client);
    const res = await client.post("/webhooks", {
      ...fields,
      tenantId: "sandbox-tenant",
      events: ["document", "user_account"],
      object: placeOf(t.origin),
    });
    assert.equal(res.status, 400);
    const page = parse(await res.text());
    try {
      assert.match(page.document.querySelector(".error")?.textContent ?? "", /cannot be mixed/);
      // The checklist keeps what was chosen.
      assert.equal(
        (page.document.querySelector("#event-document") as HTMLInputElement).checked,
        true,
      );
    } finally {
      page.close();
    }
    // Refused, the form's token may be sent again with the values corrected.
    const noObject = await client.post("/webhooks", {
      ...fields,
      tenantId: "sandbox-tenant",
      events: ["discussion"],
    });
    assert.equal(noObject.status, 400);
    assert.match(await noObject.text(), /need an object/);
    assert.equal((await t.app.webhooks.list()).values.length, 0);
  });
});

Deno.test("registering for a community without tokens says to connect it first", async () => {
  await withSignedIn({ preconnectSandbox: false, connect: false }, async ({ client }) => {
    const res = await client.post("/webhooks", {
      ...await registerFormFields(client),
      tenantId: "sandbox-tenant",
      events: ["user_account"],
    });
    assert.equal(res.status, 400);
    const page = parse(await res.text());
    try {
      const error = page.document.querySelector(".error")?.textContent ?? "";
      assert.match(error, /no access token/);
      assert.match(error, /Connect the community first/);
    } finally {
      page.close();
    }
  });
});

Deno.test("webhooks are listed, filtered by tenant and paged", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save({
      name: "Other",
      tenantId: "other",
      baseUrl: "https://other.example",
    });
    for (let i = 0; i < 23; i++) {
      await t.app.webhooks.save({
        id: `s${String(i).padStart(2, "0")}`,
        tenantId: "sandbox-tenant",
        entity: { resources: { self: { ref: `${t.origin}/sandbox/api/core/v3/webhooks/${i}` } } },
      });
    }
    await t.app.webhooks.save({
      id: "o1",
      tenantId: "other",
      entity: { resources: { self: { ref: "https://other.example/api/core/v3/webhooks/1" } } },
    });
    const client = await signIn(t.origin);
    const collect = (start: string) =>
      collectPages(client, start, { rows: "#webhooks tr[data-webhook]", attribute: "data-webhook" });
    const all = await collect("/webhooks");
    assert.equal(all.ids.length, 24);
    assert.equal(new Set(all.ids).size, 24);
    assert.equal(all.pages, 2);
    const sandboxOnly = await collect("/webhooks?tenant=sandbox-tenant");
    assert.equal(sandboxOnly.ids.length, 23);
    assert.ok(!sandboxOnly.ids.includes("o1"));
    const other = await collect("/webhooks?tenant=other");
    assert.deepEqual(other.ids, ["o1"]);
  } finally {
    await t.close();
  }
});

Deno.test("webhooks are looked up by webhook URL and by id", async () => {
  const t = await startConsole();
  try {
    const ref = "https://other.example/api/core/v3/webhooks/77";
    await t.app.webhooks.save({ id: "w77", tenantId: "other", entity: { resources: { self: { ref } } } });
    await t.app.webhooks.save({
      id: "w78",
      tenantId: "other",
      entity: { resources: { self: { ref: ref + "8" } } },
    });
    const client = await signIn(t.origin);
    const page = parse(await client.text(`/webhooks?url=${encodeURIComponent(ref)}`, 200));
    try {
      const ids = [...page.document.querySelectorAll("#webhooks tr[data-webhook]")].map((r) =>
        r.getAttribute("data-webhook")
      );
      assert.deepEqual(ids, ["w77"]);
    } finally {
      page.close();
    }
    const byId = await client.fetch("/webhooks?id=w78");
    await byId.body?.cancel();
    assert.equal(byId.status, 302);
    assert.equal(byId.headers.get("location"), "/webhooks/w78");
    const missing = await client.fetch("/webhooks?id=nope");
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /No webhook has the id &#39;nope&#39;|No webhook has the id 'nope'/);
    const detail = await client.fetch("/webhooks/nope");
    assert.equal(detail.status, 404);
    await detail.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("unregistering removes the hook on the platform and the record", async () => {
  await withHook(async (t, { id, callback, ref }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const ask = await client.post(`/webhooks/${id}/unregister`, { _csrf: csrf });
    assert.equal(ask.status, 200);
    assert.match(await ask.text(), /Unregister this webhook\?/);
    assert.ok(await t.app.webhooks.findByID(id), "nothing happens before the confirmation");
    const res = await client.post(`/webhooks/${id}/unregister`, { _csrf: csrf, confirm: "yes" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/webhooks?notice=unregistered");
    assert.equal(await t.app.webhooks.findByID(id), null);
    // The sandbox no longer has it: nothing to deliver.
    assert.deepEqual(await trigger(t.origin, {}), []);
    // The receiver forgets it: a postback the community signs is answered 404.
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const authorization = await signJiveExtn(
      { clientId: community.clientId!, jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant" },
      community.clientSecret!,
    );
    const post = await fetch(callback, {
      method: "POST",
      headers: { authorization },
      body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]),
    });
    assert.equal(post.status, 404);
    await post.body?.cancel();
  });
});

Deno.test("an expired community token is renewed while registering, and the community page says when", async () => {
  const t = await startConsole();
  try {
    const before = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    await new Promise((r) => setTimeout(r, 5)); // a later renewedAt
    assert.ok((await t.app.sandboxApi!.expireTokens()) > 0);
    const client = await signIn(t.origin);
    const id = await registerHook(client, t.origin);
    assert.ok(await t.app.webhooks.findByID(id));
    const after = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    assert.notEqual(after.oauth!.access_token, before.oauth!.access_token);
    assert.ok(after.renewedAt! > before.renewedAt!);
    const html = await client.text("/communities/sandbox-tenant", 200);
    assert.ok(!html.includes(after.oauth!.access_token));
    const page = parse(html);
    try {
      assert.equal(page.document.querySelector("#token-state time")?.getAttribute("datetime"), after.renewedAt);
    } finally {
      page.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("a hook's health.json counts its deliveries; an unknown or unregistered hook's is 404, as its page", async () => {
  await withHook(async (t, { id }, client) => {
    await t.app.deliveries.add(id, [{ webhook: "https://c.example/api/core/v3/webhooks/1", activity: {} }]);
    const known = await client.fetch(`/webhooks/${id}/health.json`);
    assert.equal(known.status, 200);
    assert.equal((await known.json()).total, 1);
    for (const other of ["01HZZZZZZZZZZZZZZZZZZZZZZZ", "nope"]) {
      const unknown = await client.fetch(`/webhooks/${other}/health.json`);
      assert.equal(unknown.status, 404, other);
      assert.equal((await unknown.json()).total, undefined, "no health claimed for it");
      const page = await client.fetch(`/webhooks/${other}`);
      assert.equal(page.status, 404, "as the hook's page");
      await page.body?.cancel();
    }
    // Unregistered, its deliveries stay in the log, but it has no health to show.
    await t.app.webhooks.remove(id);
    const removed = await client.fetch(`/webhooks/${id}/health.json`);
    assert.equal(removed.status, 404);
    await removed.body?.cancel();
  });
});

Deno.test("/webhooks/health.json reads the health of several hooks in one request, leaving out ids that name no record", async () => {
  await withHook(async (t, { id }, client) => {
    await t.app.deliveries.add(id, [{ webhook: "https://c.example/api/core/v3/webhooks/1", activity: {} }]);
    await t.app.webhooks.save({ id: "quiet", tenantId: "sandbox", entity: {} });
    const res = await client.fetch(`/webhooks/health.json?id=${id}&id=quiet&id=nope&id=${id}`);
    assert.equal(res.status, 200);
    const health = await res.json();
    assert.deepEqual(Object.keys(health).sort(), [id, "quiet"].sort());
    assert.equal(health[id].total, 1);
    assert.equal(health.quiet.total, 0);
    for (const bad of ["", "?id=", `?${Array.from({ length: 201 }, (_, i) => `id=h${i}`).join("&")}`]) {
      const refused = await client.fetch(`/webhooks/health.json${bad}`);
      assert.equal(refused.status, 400, bad.slice(0, 20));
      await refused.body?.cancel();
    }
    const anonymous = await fetch(`${t.origin}/webhooks/health.json?id=${id}`, { redirect: "manual" });
    await anonymous.body?.cancel();
    assert.notEqual(anonymous.status, 200, "signed in only");
  });
});
