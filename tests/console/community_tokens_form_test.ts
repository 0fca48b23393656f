// The community form's tokens on paths no other test took: a refresh token without an access token is refused with
// the reason (nothing stored, no token shown), and tokens typed into the edit form are stored with the time they
// were set.

import assert from "node:assert/strict";
import { pageError, signInAtForm, startConsole } from "./_helpers.ts";
import { noSecrets } from "./_no_secrets.ts";

const REFRESH = "refresh-token-typed-789";
const ACCESS = "access-token-typed-321";

Deno.test("adding a community with a refresh token but no access token answers 400 saying so, storing nothing", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const res = await client.post("/communities", {
      _csrf: csrf,
      name: "Half",
      tenantId: "half-1",
      baseUrl: "https://half.example",
      refreshToken: REFRESH,
    });
    const html = await res.text();
    assert.equal(res.status, 400);
    assert.equal(pageError(html), "A refresh token needs an access token");
    noSecrets(html, REFRESH);
    assert.equal(await t.app.webhooks.communities.findByTenantID("half-1"), null);
  } finally {
    await t.close();
  }
});

Deno.test("tokens typed into a community's edit form are stored with the time they were set", async () => {
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save({ name: "Typed", tenantId: "typed-1", baseUrl: "https://typed.example" });
    const { client, csrf } = await signInAtForm(t.origin, "/communities/typed-1");
    const before = Date.now();
    const res = await client.post("/communities/typed-1", {
      _csrf: csrf,
      name: "Typed",
      baseUrl: "https://typed.example",
      accessToken: ACCESS,
      refreshToken: REFRESH,
    });
    const html = await res.text();
    assert.equal(res.status, 303, html.slice(0, 500));
    const stored = await t.app.webhooks.communities.findByTenantID("typed-1");
    assert.deepEqual(stored?.oauth, { access_token: ACCESS, refresh_token: REFRESH });
    assert.ok(Date.parse(stored!.renewedAt!) >= before - 1000, String(stored?.renewedAt));
    noSecrets(await client.text("/communities/typed-1", 200), ACCESS, REFRESH);
  } finally {
    await t.close();
  }
});
