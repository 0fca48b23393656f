// Connect's callback stores the tokens the community's OAuth answered. The exchange takes a round trip to the
// provider (seconds, for a slow one); a Remove or an edit of the community saved in another tab meanwhile must stand:
// a removed community is not brought back with fresh tokens, and a new name is not put back to the old one.

import assert from "node:assert/strict";
import { type Client, csrfOf, pageError, signIn, startConsole, type TestConsole } from "./_helpers.ts";

/** A community's OAuth on 127.0.0.1 whose token endpoint holds its answer until `release()`. */
function heldProvider() {
  const asked = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    if (new URL(req.url).pathname !== "/oauth2/token") return new Response("not found", { status: 404 });
    await req.text();
    asked.resolve();
    await released.promise;
    return Response.json({
      access_token: "fresh-access-secret",
      refresh_token: "fresh-refresh-secret",
      token_type: "bearer",
    });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    asked: asked.promise,
    release: () => released.resolve(),
    close: async () => {
      released.resolve();
      await server.shutdown();
    },
  };
}

/** Starts Connect of `t-acme` and sends its callback; resolves, with its answer to come, once the provider holds the token request. */
async function connectHeld(client: Client, provider: { asked: Promise<void> }): Promise<{ answer: Promise<Response> }> {
  const start = await client.fetch("/communities/t-acme/connect");
  await start.body?.cancel();
  assert.equal(start.status, 302);
  const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
  const answer = client.fetch(`/auth/community/callback?${new URLSearchParams({ code: "the-code", state })}`);
  await provider.asked;
  return { answer };
}

async function withAcme(
  fn: (t: TestConsole, client: Client, provider: ReturnType<typeof heldProvider>) => Promise<void>,
) {
  const provider = heldProvider();
  const t = await startConsole();
  try {
    await t.app.webhooks.communities.save({
      name: "Acme",
      tenantId: "t-acme",
      baseUrl: provider.base,
      clientId: "cid",
      clientSecret: btoa("the client secret"),
    });
    await fn(t, await signIn(t.origin), provider);
  } finally {
    await provider.close();
    await t.close();
  }
}

Deno.test("Connect: a community removed while its callback exchanges the code stays removed, and the answer says so", async () => {
  await withAcme(async (t, client, provider) => {
    const { answer } = await connectHeld(client, provider);
    const csrf = csrfOf(await client.text("/communities/t-acme", 200));
    const removed = await client.post("/communities/t-acme/remove", { _csrf: csrf, confirm: "yes" });
    await removed.body?.cancel();
    assert.equal(removed.headers.get("location"), "/communities?notice=removed");
    provider.release();
    const res = await answer;
    const body = await res.text();
    assert.equal(await t.app.webhooks.communities.findByTenantID("t-acme"), null, "the removed community came back");
    assert.notEqual(res.headers.get("location"), "/communities/t-acme?notice=connected");
    assert.equal(res.status, 404, pageError(body) ?? "");
    assert.match(pageError(body) ?? "", /removed/i);
  });
});

Deno.test("Connect: a community renamed while its callback exchanges the code keeps its new name and gets the tokens", async () => {
  await withAcme(async (t, client, provider) => {
    const { answer } = await connectHeld(client, provider);
    const csrf = csrfOf(await client.text("/communities/t-acme", 200));
    const saved = await client.post("/communities/t-acme", {
      _csrf: csrf,
      name: "Acme Renamed",
      baseUrl: provider.base,
      clientId: "cid",
    });
    await saved.body?.cancel();
    assert.equal(saved.headers.get("location"), "/communities/t-acme?notice=saved");
    provider.release();
    const res = await answer;
    await res.body?.cancel();
    assert.equal(res.headers.get("location"), "/communities/t-acme?notice=connected");
    const now = await t.app.webhooks.communities.findByTenantID("t-acme");
    assert.equal(now?.name, "Acme Renamed", "the rename saved meanwhile was undone");
    assert.equal(now?.oauth?.access_token, "fresh-access-secret");
    assert.equal(await t.app.webhooks.communities.findByName("Acme"), null);
  });
});

Deno.test("Connect: a community moved to another address while its callback exchanges the code keeps the move and none of the old address's tokens", async () => {
  await withAcme(async (t, client, provider) => {
    const { answer } = await connectHeld(client, provider);
    const csrf = csrfOf(await client.text("/communities/t-acme", 200));
    const moved = await client.post("/communities/t-acme", {
      _csrf: csrf,
      name: "Acme",
      baseUrl: "https://acme.example",
      clientId: "cid",
      clientSecret: btoa("the client secret there"),
    });
    await moved.body?.cancel();
    assert.equal(moved.headers.get("location"), "/communities/t-acme?notice=saved");
    provider.release();
    const res = await answer;
    const body = await res.text();
    const now = await t.app.webhooks.communities.findByTenantID("t-acme");
    assert.equal(now?.baseUrl, "https://acme.example", "the move saved meanwhile was undone");
    assert.equal(now?.oauth, undefined, "tokens of the old address would be sent to the new one");
    assert.notEqual(res.headers.get("location"), "/communities/t-acme?notice=connected");
    assert.match(pageError(body) ?? "", /connect/i);
    assert.ok(!body.includes("fresh-access-secret") && !body.includes("fresh-refresh-secret"));
  });
});
