// The console's communities: added, edited and removed without showing
// secrets; a bad form or tenant id refused with the reason and nothing stored;
// two adds of one tenant id at once; the list a page at a time; and an edit and
// a remove at the same moment.

import assert from "node:assert/strict";
import { collectPages, csrfOf, parse, signIn, signInAtForm, startConsole, withSignedIn } from "./_helpers.ts";
import { noSecrets } from "./_no_secrets.ts";

const SECRET = "c2VjcmV0LWNsaWVudC1zZWNyZXQ=.s";
const ACCESS = "access-token-value-123";
const REFRESH = "refresh-token-value-456";

Deno.test("communities can be added, edited and removed without showing secrets", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const add = await client.post("/communities", {
      _csrf: csrf,
      name: "Acme",
      tenantId: "acme-1",
      baseUrl: "https://acme.example/",
      clientId: "acme-client",
      clientSecret: SECRET,
      accessToken: ACCESS,
      refreshToken: REFRESH,
    });
    await add.body?.cancel();
    assert.equal(add.status, 303);
    assert.equal(add.headers.get("location"), "/communities/acme-1?notice=saved");
    const stored = await t.app.webhooks.communities.findByTenantID("acme-1");
    assert.equal(stored?.baseUrl, "https://acme.example");
    assert.equal(stored?.clientSecret, SECRET);
    assert.deepEqual(stored?.oauth, { access_token: ACCESS, refresh_token: REFRESH });

    // List and detail say the tokens are present, never what they are.
    const list = await client.text("/communities", 200);
    noSecrets(list, SECRET, ACCESS, REFRESH);
    const detail = await client.text("/communities/acme-1", 200);
    noSecrets(detail, SECRET, ACCESS, REFRESH);
    const page = parse(detail);
    try {
      assert.equal(
        page.document.querySelector("#token-state [data-tokens]")
          ?.getAttribute("data-tokens"),
        "present",
      );
      assert.equal(
        (page.document.querySelector('input[name="clientSecret"]') as HTMLInputElement)
          .value,
        "",
      );
    } finally {
      page.close();
    }

    // Editing with blank secret fields keeps them.
    const edit = await client.post("/communities/acme-1", {
      _csrf: csrf,
      name: "Acme Corp",
      baseUrl: "https://acme.example",
      clientId: "acme-client",
      clientSecret: "",
      accessToken: "",
      refreshToken: "",
    });
    await edit.body?.cancel();
    assert.equal(edit.status, 303);
    const edited = await t.app.webhooks.communities.findByTenantID("acme-1");
    assert.equal(edited?.name, "Acme Corp");
    assert.equal(edited?.clientSecret, SECRET);
    assert.equal(edited?.oauth?.access_token, ACCESS);

    // Forgetting the tokens.
    const clear = await client.post("/communities/acme-1", {
      _csrf: csrf,
      name: "Acme Corp",
      baseUrl: "https://acme.example",
      clientId: "acme-client",
      clearTokens: "1",
    });
    await clear.body?.cancel();
    assert.equal(
      (await t.app.webhooks.communities.findByTenantID("acme-1"))?.oauth,
      undefined,
    );

    // First a confirmation page; nothing is removed yet.
    const ask = await client.post("/communities/acme-1/remove", { _csrf: csrf });
    assert.equal(ask.status, 200);
    assert.match(await ask.text(), /id="confirm"[\s\S]*name="confirm" value="yes"/);
    assert.ok(await t.app.webhooks.communities.findByTenantID("acme-1"));
    const remove = await client.post("/communities/acme-1/remove", { _csrf: csrf, confirm: "yes" });
    await remove.body?.cancel();
    assert.equal(remove.status, 303);
    assert.equal(remove.headers.get("location"), "/communities?notice=removed");
    assert.equal(await t.app.webhooks.communities.findByTenantID("acme-1"), null);
  } finally {
    await t.close();
  }
});

Deno.test("a bad community form is refused with the reason and nothing stored", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const res = await client.post("/communities", {
      _csrf: csrf,
      name: "Bad",
      tenantId: "bad",
      baseUrl: "not a url",
      clientSecret: SECRET,
    });
    assert.equal(res.status, 400);
    const html = await res.text();
    noSecrets(html, SECRET);
    const page = parse(html);
    try {
      assert.match(
        page.document.querySelector(".error")?.textContent ?? "",
        /Base URL must be an absolute http\(s\) URL, got 'not a url'/,
      );
    } finally {
      page.close();
    }
    assert.equal(await t.app.webhooks.communities.findByTenantID("bad"), null);

    const dup = await client.post("/communities", {
      _csrf: csrf,
      name: "Other",
      tenantId: "sandbox-tenant",
      baseUrl: "https://x.example",
    });
    assert.equal(dup.status, 400);
    assert.match(await dup.text(), /already exists/);
    assert.equal(
      (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))?.name,
      "Sandbox",
    );
  } finally {
    await t.close();
  }
});

Deno.test("a tenant id whose page would be another page is refused, and two adds of one tenant id at once save one", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const add = (name: string, tenantId: string, clientSecret = "") =>
      client.post("/communities", { _csrf: csrf, name, tenantId, baseUrl: "https://x.example", clientSecret });
    for (const name of ["Acme\u0000", "Ac\nme", "Acme\u007f"]) {
      const res = await add(name, "ctl");
      assert.equal(res.status, 400, JSON.stringify(name));
      assert.match(await res.text(), /Name may not hold control characters/);
      assert.equal(await t.app.webhooks.communities.findByTenantID("ctl"), null);
    }
    for (const tenantId of [".", "..", "new", "a\u0007b", "a\u202eb"]) {
      const res = await add(`Name ${tenantId.length}`, tenantId);
      assert.equal(res.status, 400, JSON.stringify(tenantId));
      assert.match(await res.text(), /Tenant id/);
      assert.equal(await t.app.webhooks.communities.findByTenantID(tenantId), null);
    }
    // At once: one is saved, the other told so; the first's secret is not replaced by the second's.
    const both = await Promise.all([add("First", "dup", "secret-of-first"), add("Second", "dup", "secret-of-second")]);
    const statuses = both.map((r) => r.status).sort();
    assert.deepEqual(statuses, [303, 400]);
    const refused = both.find((r) => r.status === 400)!;
    assert.match(await refused.text(), /A community with tenant id 'dup' already exists/);
    await both.find((r) => r.status === 303)!.body?.cancel();
    const stored = (await t.app.webhooks.communities.findByTenantID("dup"))!;
    assert.equal(stored.clientSecret, stored.name === "First" ? "secret-of-first" : "secret-of-second");
    assert.equal(await t.app.webhooks.communities.findByName(stored.name === "First" ? "Second" : "First"), null);
    // Later, with the hold released, the stored community still refuses another add of its tenant id.
    const again = await add("Third", "dup");
    assert.equal(again.status, 400);
    await again.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("communities are listed a page at a time", async () => {
  const t = await startConsole();
  try {
    for (let i = 0; i < 25; i++) {
      await t.app.webhooks.communities.save({
        name: `C${String(i).padStart(2, "0")}`,
        tenantId: `t${String(i).padStart(2, "0")}`,
        baseUrl: "https://c.example",
      });
    }
    const client = await signIn(t.origin);
    const { ids, pages } = await collectPages(client, "/communities", {
      rows: "#communities tbody tr[data-tenant]",
      attribute: "data-tenant",
    });
    const seen = new Set(ids);
    assert.equal(seen.size, 26); // 25 + the sandbox
    assert.equal(pages, 2);
  } finally {
    await t.close();
  }
});

Deno.test("an edit and a remove of one community at the same moment never bring it back, and an edit keeps tokens renewed meanwhile", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const { communities } = t.app.webhooks;
    for (let i = 0; i < 8; i++) {
      const tenantId = `race-${i}`;
      await communities.save({ name: `Race ${i}`, tenantId, baseUrl: "https://x.example" });
      const csrf = csrfOf(await client.text(`/communities/${tenantId}`, 200));
      const [edit, remove] = await Promise.all([
        client.post(`/communities/${tenantId}`, {
          _csrf: csrf,
          name: `Race ${i} edited`,
          baseUrl: "https://x.example",
        }),
        client.post(`/communities/${tenantId}/remove`, { _csrf: csrf, confirm: "yes" }),
      ]);
      await edit.body?.cancel();
      await remove.body?.cancel();
      assert.equal(remove.headers.get("location"), "/communities?notice=removed");
      assert.equal(await communities.findByTenantID(tenantId), null, `round ${i}: the removed community came back`);
      assert.equal(await communities.findByName(`Race ${i} edited`), null);
    }
    // Tokens renewed while an edit is on its way are kept.
    await communities.save({ name: "Tokens", tenantId: "tokens", baseUrl: "https://x.example" });
    const csrf = csrfOf(await client.text("/communities/tokens", 200));
    const renewed = { access_token: "renewed-access", refresh_token: "renewed-refresh" };
    const [edit] = await Promise.all([
      client.post("/communities/tokens", { _csrf: csrf, name: "Tokens edited", baseUrl: "https://x.example" }),
      communities.storeTokens("tokens", renewed),
    ]);
    await edit.body?.cancel();
    const stored = (await communities.findByTenantID("tokens"))!;
    assert.equal(stored.name, "Tokens edited");
    assert.deepEqual(stored.oauth, renewed);
  });
});
