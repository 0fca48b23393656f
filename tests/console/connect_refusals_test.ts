// Connect on a community's page, the two ways it fails that no other test took: a community with no OAuth client id
// (nothing to authorize with), and a code the platform refuses at the token exchange. Each answers the community's
// page with an error saying so, and the community's stored tokens are left as they were.

import assert from "node:assert/strict";
import { approveConsent, type Client, pageError, signIn, startConsole } from "./_helpers.ts";
import { noSecrets } from "./_no_secrets.ts";

Deno.test("Connect on a community without an OAuth client id says to set one first, and goes nowhere", async () => {
  const t = await startConsole({ preconnectSandbox: false });
  try {
    const community = { name: "No Client", tenantId: "tenant-nc", baseUrl: "https://nc.example" };
    await t.app.webhooks.communities.save(community);
    const client: Client = await signIn(t.origin);
    const res = await client.fetch("/communities/tenant-nc/connect");
    const html = await res.text();
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("location"), null);
    assert.equal(pageError(html), "Set the community's OAuth client id first");
    assert.deepEqual(await t.app.webhooks.communities.findByTenantID("tenant-nc"), community);
  } finally {
    await t.close();
  }
});

Deno.test("Connect whose code the platform refuses at the token exchange says that connecting failed, tokens kept", async () => {
  const t = await startConsole({ preconnectSandbox: false });
  try {
    const before = await t.app.webhooks.communities.findByTenantID("sandbox-tenant");
    const client = await signIn(t.origin);
    const back = await approveConsent(client, await client.fetch("/communities/sandbox-tenant/connect"));
    const callback = new URL(back.headers.get("location")!);
    await back.body?.cancel();
    const code = callback.searchParams.get("code")!;
    callback.searchParams.set("code", "not-a-code-the-platform-issued");
    const res = await client.fetch(callback.href);
    const html = await res.text();
    assert.equal(res.status, 400);
    assert.match(pageError(html) ?? "", /^Connecting failed\. The provider refused: invalid_grant/);
    noSecrets(html, code, before!.clientSecret as string);
    assert.deepEqual(await t.app.webhooks.communities.findByTenantID("sandbox-tenant"), before);
  } finally {
    await t.close();
  }
});
