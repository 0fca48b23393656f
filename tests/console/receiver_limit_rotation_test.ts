// The receiver's rate limit counts a tenant's postbacks whichever of its
// secrets verified them (issue 43 item 2): the previous secret of a rotation,
// still accepted for a while, is what leaked, so it must not flood the
// receiver past the limit; and the new secret counts from the moment it is
// saved, not once the console's few seconds of community cache have passed.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { NO_RATE_LIMITS, type TestConsole, type TestHook, withHook } from "./_helpers.ts";

const fivePerMinute = { rateLimits: { ...NO_RATE_LIMITS, receiver: { limit: 5, windowMs: 60_000 } } };
const NEW_SECRET = btoa("the sandbox community's rotated secret");

/** Sends `count` distinct postbacks to the hook, signed with `secret`; resolves with their statuses. */
async function postbacks(t: TestConsole, hook: TestHook, secret: string, count: number, body?: string) {
  const c = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const authorization = await signJiveExtn(
      // Distinct timestamps: each header is a new postback, not a replay.
      { clientId: c.clientId!, jiveUrl: c.baseUrl!, tenantId: c.tenantId, timestamp: Date.now() - 1_000 - i },
      secret,
    );
    const res = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization },
      body: body ?? JSON.stringify([{ webhook: hook.ref, activity: { verb: "jive:created", title: `#${i}` } }]),
    });
    await res.body?.cancel();
    statuses.push(res.status);
  }
  return statuses;
}

/** Rotates the sandbox community's client secret; resolves with the replaced one. */
async function rotate(t: TestConsole): Promise<string> {
  const before = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
  await t.app.webhooks.communities.update("sandbox-tenant", (c) => ({ ...c, clientSecret: NEW_SECRET }));
  assert.ok(await t.app.webhooks.communities.secretRotation("sandbox-tenant"), "the old secret is still accepted");
  return before.clientSecret!;
}

Deno.test("the receiver counts postbacks signed with the previous secret against the tenant's limit", async () => {
  await withHook(async (t, hook) => {
    const oldSecret = await rotate(t);
    assert.deepEqual(await postbacks(t, hook, oldSecret, 8), [200, 200, 200, 200, 200, 429, 429, 429]);
    // The tenant's budget is spent, whichever secret signs.
    assert.deepEqual(await postbacks(t, hook, NEW_SECRET, 1), [429]);
    const log = await t.app.deliveries.list({ hookId: hook.id });
    assert.equal(log.filter((d) => d.status === 200).length, 5, "only the postbacks within the limit are stored");
    assert.ok(log.some((d) => d.status === 429), "a refusal for the limit is in the hook's log");
  }, fivePerMinute);
});

Deno.test("right after a rotation, postbacks signed with the new secret count at once", async () => {
  await withHook(async (t, hook) => {
    const oldSecret = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!.clientSecret!;
    // The console has just read the community (with the old secret) for the limit.
    assert.deepEqual(await postbacks(t, hook, oldSecret, 1), [200]);
    await rotate(t);
    assert.deepEqual(await postbacks(t, hook, NEW_SECRET, 6), [200, 200, 200, 200, 429, 429]);
    assert.deepEqual(await postbacks(t, hook, oldSecret, 1), [429]);
  }, fivePerMinute);
});

Deno.test("postbacks refused after the previous secret verified count too; forged ones never", async () => {
  await withHook(async (t, hook) => {
    const oldSecret = await rotate(t);
    // Forged while the rotation lasts: refused, and none of the tenant's budget spent.
    assert.deepEqual(await postbacks(t, hook, btoa("never this community's secret"), 6), [
      401,
      401,
      401,
      401,
      401,
      401,
    ]);
    // Verified with the previous secret, then refused for their body (not JSON): each counts.
    assert.deepEqual(await postbacks(t, hook, oldSecret, 6, "not json"), [400, 400, 400, 400, 400, 429]);
    assert.deepEqual(await postbacks(t, hook, oldSecret, 1), [429]);
  }, fivePerMinute);
});
