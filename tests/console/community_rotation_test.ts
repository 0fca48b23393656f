// Rotating a community's client secret in the console (issue 24, portal
// gaps): a new secret saved through the community form keeps the previous
// one accepted by the console's receiver until the rotation's validUntil; the
// community page says "Secret rotated … ago; the previous secret is accepted
// until …" while it is, and never shows either secret.

import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { SecretRotationNotice } from "../../console/components/SecretRotationNotice.tsx";
import { csrfOf, parse, withHook } from "./_helpers.ts";

const NEW_SECRET = btoa("the sandbox community's new secret");

Deno.test("a secret rotated through the community form: the page shows the rotation, never a secret, and the receiver still takes the old secret", async () => {
  await withHook(async (t, hook, client) => {
    const path = "/communities/sandbox-tenant";
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const oldSecret = community.clientSecret as string;
    const before = await client.text(path, 200);
    assert.equal(before.includes('id="secret-rotation"'), false);

    // Signed with the old secret just before the change.
    const params = { clientId: community.clientId!, jiveUrl: community.baseUrl!, tenantId: community.tenantId };
    const signedBefore = await signJiveExtn(params, oldSecret);
    const form = {
      _csrf: csrfOf(before),
      name: community.name,
      baseUrl: community.baseUrl!,
      clientId: community.clientId!,
    };
    const saved = await client.post(path, { ...form, clientSecret: NEW_SECRET });
    await saved.body?.cancel();
    assert.equal(saved.status, 303);
    assert.equal((await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))?.clientSecret, NEW_SECRET);

    const html = await client.text(path, 200);
    for (const secret of [oldSecret, NEW_SECRET]) assert.equal(html.includes(secret), false, "a secret is shown");
    const rotation = (await t.app.webhooks.communities.secretRotation("sandbox-tenant"))!;
    const page = parse(html);
    try {
      const notice = page.document.querySelector("#secret-rotation");
      assert.match(
        notice?.textContent?.replace(/\s+/g, " ") ?? "",
        /^Secret rotated (just now|\d+ seconds? ago); the previous secret is accepted until \d{1,2} \w{3} \d{4}, [\d:]{8} UTC, so postbacks/,
      );
      assert.equal(notice?.querySelector("time")?.getAttribute("datetime"), rotation.validUntil);
    } finally {
      page.close();
    }

    // The console's receiver: the old secret's postback is delivered, a secret never the community's is not.
    const body = JSON.stringify([{ webhook: hook.ref, activity: { verb: "jive:created", title: "Rotation" } }]);
    const send = async (authorization: string) => {
      const res = await fetch(hook.callback, { method: "POST", headers: { authorization }, body });
      return [res.status, await res.json()];
    };
    assert.deepEqual(await send(signedBefore), [200, { received: 1 }]);
    assert.deepEqual(await send(await signJiveExtn(params, NEW_SECRET)), [200, { received: 1 }]);
    assert.equal((await send(await signJiveExtn(params, btoa("never this community's secret"))))[0], 401);

    // Saving again with the secret field blank is no rotation.
    const kept = await client.post(path, { ...form, clientSecret: "" });
    await kept.body?.cancel();
    assert.deepEqual(await t.app.webhooks.communities.secretRotation("sandbox-tenant"), rotation);
  });
});

Deno.test("the rotation notice says how long ago, and is gone once the previous secret is no longer accepted", () => {
  const rotation = { rotatedAt: "2026-01-01T00:00:00.000Z", validUntil: "2026-01-01T00:06:30.000Z" };
  const render = (node: ReturnType<typeof SecretRotationNotice>) => node ? renderToString(node) : "";
  const at = (iso: string) => render(SecretRotationNotice({ rotation, now: Date.parse(iso) }));
  assert.match(at("2026-01-01T00:02:00.000Z"), /Secret rotated 2 minutes ago; the previous secret is accepted until/);
  assert.match(at("2026-01-01T00:00:00.400Z"), /Secret rotated just now;/);
  assert.match(at("2026-01-01T00:06:30.000Z"), /^$/);
  assert.equal(render(SecretRotationNotice({ rotation: null, now: 0 })), "");
});

Deno.test("a leaked previous secret: 'Refuse the previous secret now' ends the overlap, and the receiver refuses it", async () => {
  await withHook(async (t, hook, client) => {
    const path = "/communities/sandbox-tenant";
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const oldSecret = community.clientSecret as string;
    const params = { clientId: community.clientId!, jiveUrl: community.baseUrl!, tenantId: community.tenantId };
    const before = await client.text(path, 200);
    assert.equal(before.includes('id="revoke-previous-secret"'), false, "no rotation, no button");
    const form = {
      _csrf: csrfOf(before),
      name: community.name,
      baseUrl: community.baseUrl!,
      clientId: community.clientId!,
    };
    await (await client.post(path, { ...form, clientSecret: NEW_SECRET })).body?.cancel();
    const body = JSON.stringify([{ webhook: hook.ref, activity: { verb: "jive:created", title: "Leak" } }]);
    const send = async (secret: string) =>
      (await fetch(hook.callback, {
        method: "POST",
        headers: { authorization: await signJiveExtn(params, secret) },
        body,
      }))
        .status;
    assert.equal(await send(oldSecret), 200); // within the overlap

    const page = await client.text(path, 200);
    assert.match(page, /id="revoke-previous-secret"/);
    // Without the form's CSRF token the request is refused and nothing changes.
    const forged = await client.post(`${path}/revoke-previous-secret`, {});
    await forged.body?.cancel();
    assert.equal(forged.status, 403);
    assert.ok(await t.app.webhooks.communities.secretRotation("sandbox-tenant"));

    const revoked = await client.post(`${path}/revoke-previous-secret`, { _csrf: csrfOf(page) });
    await revoked.body?.cancel();
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.get("location"), `${path}?notice=secret-revoked`);
    assert.equal(await t.app.webhooks.communities.secretRotation("sandbox-tenant"), null);
    const after = await client.text(`${path}?notice=secret-revoked`, 200);
    assert.match(after, /The previous client secret is refused from now on/);
    assert.equal(after.includes('id="secret-rotation"'), false);
    for (const secret of [oldSecret, NEW_SECRET]) assert.equal(after.includes(secret), false, "a secret is shown");
    assert.equal(await send(oldSecret), 401);
    assert.equal(await send(NEW_SECRET), 200);
  });
});
