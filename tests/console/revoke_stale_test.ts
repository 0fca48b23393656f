// Two operators on one community's page: A opened it while the previous
// secret S0 was the one kept (leaked, say) and presses "Refuse the previous
// secret now"; B rotated again meanwhile (S1 to S2), so S1 is now the one
// kept, still accepted for postbacks signed just before B's change. A's
// stale form must not refuse S1, a secret A never saw on the page: nothing is
// revoked, and the page says why.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { csrfOf, parse, withHook } from "./_helpers.ts";

const S1 = btoa("the first rotation's secret");
const S2 = btoa("the second rotation's secret");

/** The revoke form's fields as the page `html` has them. */
function revokeFields(html: string): Record<string, string> {
  const page = parse(html);
  try {
    const form = page.document.querySelector("form#revoke-previous-secret");
    assert.ok(form, "the page offers the revoke");
    const fields: Record<string, string> = {};
    for (const input of form.querySelectorAll("input[type=hidden]")) {
      const el = input as HTMLInputElement;
      fields[el.name] = el.value;
    }
    return fields;
  } finally {
    page.close();
  }
}

Deno.test("a revoke sent from a page shown before another rotation refuses nothing, and says so", async () => {
  await withHook(async (t, hook, client) => {
    const path = "/communities/sandbox-tenant";
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const form = { name: community.name, baseUrl: community.baseUrl!, clientId: community.clientId! };
    const rotate = async (clientSecret: string) => {
      const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), ...form, clientSecret });
      await res.body?.cancel();
      assert.equal(res.status, 303);
    };
    await rotate(S1); // S0 kept
    const seenByA = revokeFields(await client.text(path, 200));
    await rotate(S2); // B: S1 kept now
    const kept = await t.app.webhooks.communities.secretRotation("sandbox-tenant");
    assert.ok(kept);

    const res = await client.post(`${path}/revoke-previous-secret`, seenByA);
    const html = res.status === 303 ? "" : await res.text();
    assert.notEqual(res.headers.get("location"), `${path}?notice=secret-revoked`, "A's stale form revoked S1");
    assert.ok(res.status < 500, html.slice(0, 300));
    assert.match(html, /rotated again/i);
    assert.deepEqual(await t.app.webhooks.communities.secretRotation("sandbox-tenant"), kept);

    // S1 still verifies, as B's rotation promised.
    const params = { clientId: community.clientId!, jiveUrl: community.baseUrl!, tenantId: community.tenantId };
    const body = JSON.stringify([{ webhook: hook.ref, activity: { verb: "jive:created", title: "Signed with S1" } }]);
    const answer = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization: await signJiveExtn(params, S1) },
      body,
    });
    await answer.body?.cancel();
    assert.equal(answer.status, 200);

    // Sent from the page as it is now, the revoke refuses S1.
    const now = await client.post(`${path}/revoke-previous-secret`, revokeFields(await client.text(path, 200)));
    await now.body?.cancel();
    assert.equal(now.headers.get("location"), `${path}?notice=secret-revoked`);
    assert.equal(await t.app.webhooks.communities.secretRotation("sandbox-tenant"), null);
  });
});
