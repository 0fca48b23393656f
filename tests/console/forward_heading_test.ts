// The Forward to page's heading named the hook by its record id where the
// hook's own page names it ("Webhook “Orders feed”"): it now names it as the
// hook page does (its given name; else, as the lists do, its events and
// community), with the record id as a second line, as the deliveries list
// shows it.

import assert from "node:assert/strict";
import { parse, withSignedInHook } from "./_helpers.ts";
import { HookLabels } from "../../console/lib/labels.ts";

/** The page's heading: its name line and its id line, and the page's title. */
async function headingOf(
  text: Promise<string>,
): Promise<{ name: string; id: string | undefined; title: string }> {
  const page = parse(await text);
  try {
    const h1 = page.document.querySelector("h1")!;
    const id = h1.querySelector("small.id")?.textContent ?? undefined;
    const name = [...h1.childNodes].filter((n) => n.nodeName !== "SMALL").map((n) => n.textContent).join("");
    return { name, id, title: page.document.title };
  } finally {
    page.close();
  }
}

Deno.test("Forward to: the heading names the hook as its page does, its record id a second line", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const unnamed = await headingOf(client.text(path, 200));
    assert.ok(!unnamed.name.includes(hookId), `the heading names the hook by its id: ${unnamed.name}`);
    assert.match(unnamed.name, /^Forward postbacks of .+ · /, "an unnamed hook: its events and community");
    assert.equal(unnamed.id, hookId);

    await new HookLabels(t.kv).set(hookId, { name: "Orders feed", description: "" });
    const hookPage = await headingOf(client.text(`/webhooks/${hookId}`, 200));
    assert.equal(hookPage.name, "Webhook “Orders feed”");
    const named = await headingOf(client.text(path, 200));
    assert.equal(named.name, "Forward postbacks of “Orders feed”");
    assert.equal(named.id, hookId);
    assert.equal(named.title, "Forward postbacks of “Orders feed” · Webhooks console");
  });
});

Deno.test("Forward to: a hook record without a tenant id (saved by another tool) is not headed 'undefined'", async () => {
  await withSignedInHook({}, async ({ t, client }) => {
    await t.app.webhooks.save({ id: "no-tenant", entity: { events: ["user_account"] } } as never);
    const heading = await headingOf(client.text("/webhooks/no-tenant/forward", 200));
    assert.doesNotMatch(heading.name, /undefined/, `the heading: ${heading.name}`);
    assert.match(heading.name, /^Forward postbacks of user_account · /);
    assert.equal(heading.id, "no-tenant");
  });
});
