/**
 * The sandbox as the platform of Module A: the same KV, the community record
 * from `communityFor`, tokens won through the sandbox's OAuth, then register,
 * renewal on 401, postbacks found by webhook URL, reconcile and unregister.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import * as oauth from "oauth4webapi";
import { verifyJiveExtn } from "../../webhooks/mod.ts";
import { ANTI_HIJACKING_PREFIX, createSandbox } from "../../sandbox/mod.ts";
import { createWebhooks } from "../../webhooks/mod.ts";

const insecure = { [oauth.allowInsecureRequests]: true };

/** Signs the Sandbox User in through the community's client (code + PKCE). */
async function communityTokens(
  origin: string,
  sandbox: ReturnType<typeof createSandbox>,
): Promise<{ access_token: string; refresh_token: string }> {
  const community = await sandbox.communityFor(origin);
  const as = sandbox.authorizationServerFor(origin);
  const client = { client_id: community.clientId };
  const redirectUri = `${origin}/auth/community/callback`;
  const verifier = oauth.generateRandomCodeVerifier();
  const consent = await fetch(`${origin}/sandbox/oauth2/authorize`, {
    method: "POST",
    headers: { Origin: origin },
    body: new URLSearchParams({
      response_type: "code",
      client_id: community.clientId,
      redirect_uri: redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state: "st",
      decision: "approve",
    }),
    redirect: "manual",
  });
  assert.equal(consent.status, 303);
  await consent.body?.cancel();
  const params = oauth.validateAuthResponse(as, client, new URL(consent.headers.get("location")!), "st");
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(community.clientSecret),
      params,
      redirectUri,
      verifier,
      insecure,
    ),
  );
  return { access_token: tokens.access_token, refresh_token: tokens.refresh_token! };
}

Deno.test("Module A registers, renews, finds postbacks, reconciles and unregisters against the sandbox", async () => {
  const kv = await Deno.openKv(":memory:");
  const received: { headers: Headers; body: string }[] = [];
  const receiver = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    received.push({ headers: request.headers, body: await request.text() });
    return new Response(null, { status: 204 });
  });
  const sandbox = createSandbox({ kv });
  const app = new Hono();
  app.route("/sandbox", sandbox.app);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const callback = `http://127.0.0.1:${receiver.addr.port}/hooks/sandbox`;
  try {
    const hooks = createWebhooks(kv);
    const tokens = await communityTokens(origin, sandbox);
    await hooks.communities.save({ ...await sandbox.communityFor(origin), oauth: tokens });

    // register: one platform call, one local record.
    const response = await hooks.register("Sandbox", ["discussion"], sandbox.placeFor(origin), callback);
    const selfRef = response.entity.resources?.self?.ref;
    assert.equal(selfRef, `${origin}/sandbox/api/core/v3/webhooks/${response.entity.id}`);
    const [record] = await hooks.findByWebhookURL(selfRef!);
    assert.equal(record.tenantId, "sandbox-tenant");

    // An expired token: Module A renews once (the sandbox rotates) and retries.
    assert.equal(await sandbox.expireTokens(), 1);
    const second = await hooks.register({
      community: "Sandbox",
      events: ["user_account"],
      callback: `${callback}?system`,
    });
    assert.ok(second.entity.id);
    const stored = await hooks.communities.findByTenantID("sandbox-tenant");
    assert.notEqual(stored!.oauth!.access_token, tokens.access_token);
    assert.notEqual(stored!.oauth!.refresh_token, tokens.refresh_token);
    const oldRefresh = await fetch(`${origin}/sandbox/oauth2/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: stored!.clientId!,
        client_secret: stored!.clientSecret!,
      }),
    });
    assert.equal(oldRefresh.status, 400);
    await oldRefresh.body?.cancel();

    // A triggered event reaches the receiver; its webhook URL finds the record
    // and its signature verifies with the community's stored secret.
    const summary = await sandbox.trigger({ webhookId: response.entity.id });
    assert.equal(summary.delivered[0].status, 204);
    const postback = JSON.parse(received[0].body);
    const found = await hooks.findByWebhookURL(postback[0].webhook);
    assert.deepEqual(found.map((r) => r.id), [record.id]);
    const community = await hooks.findWebhookCommunity(found[0]);
    const verified = await verifyJiveExtn(received[0].headers.get("authorization"), community!.clientSecret!);
    assert.equal(verified.ok, true);
    assert.equal(verified.ok && verified.tenantId, community!.tenantId);

    // update: disabled on the platform, the record saved with its answer; a disabled hook receives nothing.
    const paused = await hooks.update(record, { enabled: false });
    assert.equal(paused.entity.enabled, false);
    assert.equal((await hooks.findByID(record.id))!.entity.enabled, false);
    assert.deepEqual((await sandbox.trigger({ webhookId: response.entity.id })).delivered, []);
    const edited = await hooks.update(record.id, { enabled: true, events: ["discussion", "document"] });
    assert.deepEqual(edited.entity.events, ["discussion", "document"]);
    assert.equal(edited.entity.enabled, true);
    await assert.rejects(
      hooks.update(record.id, { events: ["user_account", "document"] }),
      (err: Error) =>
        err instanceof TypeError && /^Cannot update webhook: 'events' mixes system events/.test(err.message),
    );
    assert.deepEqual((await hooks.findByID(record.id))!.entity.events, ["discussion", "document"], "nothing changed");
    await assert.rejects(
      hooks.update("no-such-id", { enabled: false }),
      (err: Error) => err.message === 'Cannot update webhook: no webhook has the id "no-such-id"',
    );

    // reconcile sees both hooks matched; unregister removes one everywhere.
    const report = await hooks.reconcile(stored!);
    assert.equal(report.matched.length, 2);
    assert.deepEqual(report.orphans, []);
    assert.deepEqual(report.dangling, []);
    await hooks.unregister(record);
    assert.equal(await hooks.findByID(record.id), null);
    const fresh = (await hooks.communities.findByTenantID("sandbox-tenant"))!.oauth!.access_token;
    const list = await fetch(`${origin}/sandbox/api/core/v3/webhooks`, {
      headers: { Authorization: `Bearer ${fresh}` },
    });
    const text = await list.text();
    assert.ok(text.startsWith(ANTI_HIJACKING_PREFIX));
    const ids = JSON.parse(text.slice(ANTI_HIJACKING_PREFIX.length)).list.map((e: { id: string }) => e.id);
    assert.deepEqual(ids, [second.entity.id]);
  } finally {
    await server.shutdown();
    await receiver.shutdown();
    kv.close();
  }
});
