// The rate limits that apply to a hook or a community are shown next to it,
// with what is left (issue 44): the receiver's per tenant, the sandbox
// trigger's per address, the form posts' per session; reading them counts
// nothing, and a limit turned off says so.

import assert from "node:assert/strict";
import { connectSandbox, parse, registerHook, signIn, startConsole, trigger, withHook } from "./_helpers.ts";

const HOUR = 3600_000;

async function limits(client: { text(path: string, status?: number): Promise<string> }, path: string) {
  const page = parse(await client.text(path, 200));
  try {
    const line = (id: string) => page.document.querySelector(`#${id}`)?.textContent?.replace(/\s+/g, " ").trim();
    const left = (id: string) => page.document.querySelector(`#${id} .left`)?.textContent;
    return {
      receiver: line("limit-receiver"),
      receiverLeft: left("limit-receiver"),
      sandboxLeft: left("limit-sandbox"),
      forms: line("limit-forms"),
      formsLeft: left("limit-forms"),
      elsewhere: line("limits-elsewhere"),
    };
  } finally {
    page.close();
  }
}

Deno.test("a hook's page and its community's page show the limits that apply, with what is left", async () => {
  // An hour's window: a test never straddles two windows in practice.
  const t = await startConsole({
    rateLimits: {
      signin: null,
      rejections: null,
      receiver: { limit: 5, windowMs: HOUR },
      sandbox: { limit: 7, windowMs: HOUR },
      forms: { limit: 50, windowMs: HOUR },
    },
  });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const id = await registerHook(client, t.origin);
    const platformId = String((await t.app.webhooks.findByID(id))!.entity.id);

    const before = await limits(client, `/webhooks/${id}`);
    assert.match(
      before.receiver ?? "",
      /^Postbacks this console's receiver accepts: 5 an hour per community \(tenant sandbox-tenant\), counted once the signature verifies; 5 left, the count starts again in \d+ s\.$/,
    );
    assert.equal(before.sandboxLeft, "7");
    const formsUsed = 50 - Number(before.formsLeft);
    assert.ok(formsUsed >= 1, "registering was a form post");

    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const after = await limits(client, `/webhooks/${id}`);
    assert.equal(after.receiverLeft, "3", "two postbacks spent two of the tenant's five");
    assert.equal(after.sandboxLeft, "5", "two triggers spent two of this address's seven");
    assert.equal(after.formsLeft, before.formsLeft, "reading the page counts no hit");
    const community = await limits(client, "/communities/sandbox-tenant");
    assert.equal(community.receiverLeft, "3", "the community's page shows the same tenant budget");
    assert.equal(community.sandboxLeft, "5");

    // A hook posting elsewhere: the receiver's limit is not its.
    const other = await registerHook(client, t.origin, { callback: "http://127.0.0.1:9/elsewhere" });
    const elsewhere = await limits(client, `/webhooks/${other}`);
    assert.equal(elsewhere.receiver, undefined);
    assert.match(elsewhere.elsewhere ?? "", /does not apply/);
  } finally {
    await t.close();
  }
});

Deno.test("a limit turned off is shown as not limited, naming its variable", async () => {
  await withHook(async (_t, { id }, client) => {
    const shown = await limits(client, `/webhooks/${id}`);
    assert.match(shown.receiver ?? "", /not limited \(RATE_LIMIT_RECEIVER=0\)\.$/);
    assert.match(shown.forms ?? "", /not limited \(RATE_LIMIT_FORMS=0\)\.$/);
  });
});
