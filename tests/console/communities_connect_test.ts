// The console's communities and their OAuth: the sandbox community pre-added
// and pre-connected on start, and pointed at a restarted console's address
// with its tokens kept; connecting a community stores its tokens; and its OAuth
// endpoints drop a trailing slash of its base URL.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { connectSandbox, parse, signIn, startConsole, withSignedIn } from "./_helpers.ts";
import { communityProvider } from "../../console/lib/oauth.ts";
import { noSecrets } from "./_no_secrets.ts";

Deno.test("the sandbox community is pre-added on start, once", async () => {
  const t = await startConsole({ preconnectSandbox: false });
  try {
    const community = await t.app.webhooks.communities.findByTenantID(
      "sandbox-tenant",
    );
    assert.equal(community?.name, "Sandbox");
    assert.equal(community?.baseUrl, `${t.origin}/sandbox`);
    const client = await signIn(t.origin);
    const html = await client.text("/communities", 200);
    const page = parse(html);
    try {
      const rows = page.document.querySelectorAll("#communities tbody tr");
      assert.equal(rows.length, 1);
      assert.equal(rows[0].getAttribute("data-tenant"), "sandbox-tenant");
      assert.equal(
        rows[0].querySelector("[data-tokens]")?.getAttribute("data-tokens"),
        "absent",
      );
    } finally {
      page.close();
    }
    noSecrets(html, community!.clientSecret as string);
  } finally {
    await t.close();
  }
});

Deno.test("the sandbox community is pre-connected on start: its tokens are present", async () => {
  const t = await startConsole();
  try {
    const community = await t.app.webhooks.communities.findByTenantID("sandbox-tenant");
    assert.ok(community?.oauth?.access_token);
    assert.ok(community?.oauth?.refresh_token);
    assert.ok(community?.renewedAt);
    const client = await signIn(t.origin);
    const html = await client.text("/communities", 200);
    noSecrets(html, community.oauth.access_token, community.oauth.refresh_token);
    const page = parse(html);
    try {
      assert.equal(
        page.document.querySelector("tr[data-tenant=sandbox-tenant] [data-tokens]")?.getAttribute("data-tokens"),
        "present",
      );
    } finally {
      page.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("connecting a community through its OAuth stores tokens and shows them as present", async () => {
  await withSignedIn({ preconnectSandbox: false }, async ({ t, client }) => {
    const community = await t.app.webhooks.communities.findByTenantID(
      "sandbox-tenant",
    );
    assert.ok(community?.oauth?.access_token);
    assert.ok(community?.renewedAt);
    const html = await client.text("/communities/sandbox-tenant?notice=connected", 200);
    noSecrets(
      html,
      community.oauth.access_token,
      community.oauth.refresh_token,
      community.clientSecret as string,
    );
    const page = parse(html);
    try {
      assert.equal(
        page.document.querySelector("#token-state [data-tokens]")
          ?.getAttribute("data-tokens"),
        "present",
      );
      assert.equal(
        page.document.querySelector("#token-state time")?.getAttribute("datetime"),
        community.renewedAt,
      );
      assert.match(page.document.querySelector(".notice")?.textContent ?? "", /connected/);
    } finally {
      page.close();
    }
  });
});

Deno.test("a console restarted at another address points the sandbox community there, keeping its tokens", async () => {
  const dir = await Deno.makeTempDir({ prefix: "console_restart_" });
  try {
    const kvPath = `${dir}/console.kv`;
    const first = await startConsole({ kvPath });
    let tokens: unknown;
    try {
      const client = await signIn(first.origin);
      await connectSandbox(client, first.origin);
      tokens = (await first.app.webhooks.communities.findByTenantID("sandbox-tenant"))?.oauth;
      assert.ok(tokens);
    } finally {
      await first.close();
    }
    // As if the console had been at another address before.
    const kv = await Deno.openKv(kvPath);
    try {
      const communities = createWebhooks(kv).communities;
      const stored = (await communities.findByTenantID("sandbox-tenant"))!;
      await communities.save({ ...stored, baseUrl: "http://127.0.0.1:1/sandbox" });
    } finally {
      kv.close();
    }
    const second = await startConsole({ kvPath });
    try {
      const community = await second.app.webhooks.communities.findByTenantID("sandbox-tenant");
      assert.equal(community?.baseUrl, `${second.origin}/sandbox`);
      assert.deepEqual(community?.oauth, tokens);
      assert.equal((await second.app.webhooks.communities.list()).values.length, 1);
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a community's OAuth endpoints drop a trailing slash of its base URL, as Module A's calls do", () => {
  const provider = communityProvider({ name: "A", tenantId: "t", baseUrl: "https://c.example/", clientId: "id" });
  assert.equal(provider?.authorizationEndpoint, "https://c.example/oauth2/authorize");
  assert.equal(provider?.tokenEndpoint, "https://c.example/oauth2/token");
  assert.equal(communityProvider({ name: "A", tenantId: "t", baseUrl: "https://c.example" }), null);
});
