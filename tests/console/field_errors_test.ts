// A refused form marks the field at fault: `aria-invalid="true"`, described by the page's error message
// (`aria-describedby="page-error"`), so that a screen reader says "invalid" and reads why on that very field, and the
// others stay unmarked. Before, the message stood alone at the top of the page and no field said it was the one.

import assert from "node:assert/strict";
import { csrfOf, parse, placeOf, postRegisterForm, withSignedIn, withSignedInHook } from "./_helpers.ts";
import type { Client } from "./_helpers.ts";

/** The fields (by name, or id when nameless) the page marks invalid, and whether each points at the message. */
async function marked(res: Response): Promise<{ status: number; error: string; invalid: string[] }> {
  const page = parse(await res.text());
  try {
    const error = page.document.querySelector("#page-error")?.textContent ?? "";
    const invalid = [...page.document.querySelectorAll("[aria-invalid=true]")].map((el) => {
      const who = el.getAttribute("name") ?? el.id;
      return el.getAttribute("aria-describedby") === "page-error" ? who : `${who} (not described by the message)`;
    });
    return { status: res.status, error, invalid: [...new Set(invalid)] };
  } finally {
    page.close();
  }
}

async function register(client: Client, origin: string, fields: Record<string, string | string[]>) {
  return await marked(await postRegisterForm(client, origin, fields));
}

Deno.test("a refused register form marks the field at fault, described by the message", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const noEvent = await register(client, t.origin, { events: [] });
    assert.deepEqual(noEvent, { status: 400, error: "Choose at least one event", invalid: ["events"] });
    const mixed = await register(client, t.origin, { events: ["document", "user_account"] });
    assert.equal(mixed.error, "System events and content events cannot be mixed in one webhook");
    assert.deepEqual(mixed.invalid, ["events"]);
    const noObject = await register(client, t.origin, { object: "" });
    assert.deepEqual(noObject.invalid, ["object"]);
    const noCommunity = await register(client, t.origin, { tenantId: "nobody" });
    assert.deepEqual(noCommunity, { status: 400, error: "Choose a community", invalid: ["tenantId"] });
  });
});

Deno.test("a refused community form marks the field at fault, described by the message", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    const add = async (fields: Record<string, string>) =>
      await marked(
        await client.post("/communities", {
          _csrf: csrfOf(await client.text("/communities/new", 200)),
          name: "Acme",
          tenantId: "acme",
          baseUrl: "https://acme.example",
          ...fields,
        }),
      );
    assert.deepEqual((await add({ name: "x".repeat(201) })).invalid, ["name"]);
    assert.deepEqual((await add({ tenantId: "" })).invalid, ["tenantId"]);
    assert.deepEqual((await add({ baseUrl: "ftp://acme.example" })).invalid, ["baseUrl"]);
  });
});

Deno.test("a refused Forward to marks its URL field, described by the message", async () => {
  await withSignedInHook({ allowPrivateNetwork: false }, async ({ client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const refused = await marked(
      await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url: "http://10.0.0.1/in" }),
    );
    assert.equal(refused.status, 400);
    assert.match(refused.error, /^No destination was added: /);
    assert.deepEqual(refused.invalid, ["url"]);
  });
});

Deno.test("a refused Edit events form on a hook's page marks the events or the object", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}`;
    const edit = async (fields: Record<string, string | string[]>) =>
      await marked(await client.post(`${path}/events`, { _csrf: csrfOf(await client.text(path, 200)), ...fields }));
    const mixed = await edit({ events: ["document", "user_account"], object: placeOf(t.origin) });
    assert.match(mixed.error, /mixes system events/);
    assert.deepEqual(mixed.invalid, ["events"]);
    const none = await edit({ object: placeOf(t.origin) });
    assert.deepEqual(none.invalid, ["events"]);
    const noObject = await edit({ events: ["document"], object: "" });
    assert.match(noObject.error, /'object'/);
    assert.deepEqual(noObject.invalid, ["object"]);
  });
});
