// Issue 43 item 4 in the console: the community form carries what it was
// rendered from (whether a secret was set, and the time of the rotation in
// force; never a secret or anything made from one), so a new secret
// submitted from a form rendered before another rotation is refused with
// "the secret changed meanwhile", its typed values kept and nothing saved;
// two rotations submitted at once from fresh forms: one wins, the other is
// refused by the store's check-and-set.

import assert from "node:assert/strict";
import type { Community } from "../../webhooks/mod.ts";
import { parse, signIn, startConsole } from "./_helpers.ts";

const ORIGINAL = btoa("the original client secret");
const community: Community = {
  name: "Acme",
  tenantId: "t-acme",
  baseUrl: "https://acme.example",
  clientId: "cid",
  clientSecret: ORIGINAL,
};
const PATH = "/communities/t-acme";
const PREVIOUS_KEY = ["community_secret_previous", "t-acme"];

/** The edit form's fields as the page renders them (hidden ones included), without the secrets. */
function formFields(html: string): Record<string, string> {
  const page = parse(html);
  try {
    const fields: Record<string, string> = {};
    for (const input of page.document.querySelectorAll("form#edit input")) {
      const name = input.getAttribute("name");
      if (name && input.getAttribute("type") !== "checkbox") fields[name] = input.getAttribute("value") ?? "";
    }
    return fields;
  } finally {
    page.close();
  }
}

Deno.test("console: a new secret sent from a form rendered before another rotation is refused (the secret changed meanwhile), typed values kept", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save(community);
    const client = await signIn(t.origin);
    const stale = formFields(await client.text(PATH, 200));
    const fresh = formFields(await client.text(PATH, 200));
    assert.ok(stale._csrf, "the form has its token");
    const first = btoa("the first admin's secret");
    const saved = await client.post(PATH, { ...fresh, clientSecret: first });
    await saved.body?.cancel();
    assert.equal(saved.status, 303);

    const second = btoa("the second admin's secret");
    const refused = await client.post(PATH, { ...stale, name: "Acme typed", clientSecret: second });
    const html = await refused.text();
    assert.equal(refused.status, 400);
    assert.match(html, /the secret changed meanwhile/);
    for (const secret of [ORIGINAL, first, second]) assert.equal(html.includes(secret), false, "a secret is shown");
    assert.equal(formFields(html).name, "Acme typed", "the typed name is kept");

    const stored = await t.app.webhooks.communities.findByTenantID("t-acme");
    assert.deepEqual([stored?.name, stored?.clientSecret], ["Acme", first]);
    assert.equal((await t.kv.get<{ secret: string }>(PREVIOUS_KEY)).value?.secret, ORIGINAL);

    // The page it answered with is rendered from the state now: sent again, it rotates.
    const again = await client.post(PATH, { ...formFields(html), clientSecret: second });
    await again.body?.cancel();
    assert.equal(again.status, 303);
    assert.equal((await t.app.webhooks.communities.findByTenantID("t-acme"))?.clientSecret, second);
  } finally {
    await t.close();
  }
});

Deno.test("console: what the form carries is no secret nor made from one, and a stale form that keeps the secret still saves", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save(community);
    const client = await signIn(t.origin);
    const stale = formFields(await client.text(PATH, 200));
    for (const [name, value] of Object.entries(stale)) {
      if (name === "_csrf") continue;
      assert.ok(
        ["name", "baseUrl", "clientId", "clientSecret", "accessToken", "refreshToken", "secretFrom"].includes(name),
        name,
      );
      if (name === "secretFrom") assert.match(value, /^(none|set|rotated:\d{4}-\d\d-\d\dT[\d:.]+Z)$/);
    }
    await t.app.webhooks.communities.save({ ...community, clientSecret: btoa("rotated elsewhere") });
    const renamed = await client.post(PATH, { ...stale, name: "Acme renamed" });
    await renamed.body?.cancel();
    assert.equal(renamed.status, 303);
    const stored = await t.app.webhooks.communities.findByTenantID("t-acme");
    assert.deepEqual([stored?.name, stored?.clientSecret], ["Acme renamed", btoa("rotated elsewhere")]);
  } finally {
    await t.close();
  }
});

Deno.test("console: two rotations sent at once from fresh forms: one is saved, the other refused (the secret changed meanwhile)", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save(community);
    const client = await signIn(t.origin);
    const secrets = [btoa("secret one"), btoa("secret two")];
    for (let round = 0; round < 20; round++) {
      const forms = [formFields(await client.text(PATH, 200)), formFields(await client.text(PATH, 200))];
      const before = (await t.app.webhooks.communities.findByTenantID("t-acme"))!.clientSecret;
      const answers = await Promise.all(forms.map(async (form, i) => {
        const res = await client.post(PATH, { ...form, clientSecret: `${secrets[i]}${round}` });
        const text = await res.text();
        return { status: res.status, conflict: /the secret changed meanwhile/.test(text) };
      }));
      const stored = (await t.app.webhooks.communities.findByTenantID("t-acme"))!.clientSecret;
      const previous = (await t.kv.get<{ secret: string }>(PREVIOUS_KEY)).value?.secret;
      // Each answer says what happened: saved (303) or refused with the conflict (400); never both saved.
      const won = answers.flatMap((answer, i) => answer.status === 303 ? [i] : []);
      assert.equal(won.length, 1, `round ${round}: ${JSON.stringify(answers)}`);
      assert.ok(answers.every((answer) => answer.status === 303 || answer.conflict), JSON.stringify(answers));
      assert.equal(stored, `${secrets[won[0]]}${round}`);
      assert.equal(previous, before, "the previous secret is the one both replaced");
    }
  } finally {
    await t.close();
  }
});
