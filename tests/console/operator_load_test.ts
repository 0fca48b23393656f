// Operators act through the console's pages while the platform's postbacks
// flow (16 at once): every postback answered 200 is stored exactly once, no
// answer is a 500 or a hang, and one that arrives after the hook or the
// community is gone gets API.md's refusal (404 or 401), never a 200 that is
// then not stored.

import assert from "node:assert/strict";
import { csrfOf, withHook } from "./_helpers.ts";
import { lostOrDoubled, storedTitles, tally, underLoad } from "./_operator_load.ts";

/** Keep every delivery the load stores (the default keeps 500). */
const KEEP_ALL = { deliveries: { retain: 100_000 } };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("Unregister pressed while postbacks flow: each 200 stored once, the rest 404, none 500", async () => {
  await withHook(async (t, hook, client) => {
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const act = (async () => {
      await pause(800);
      const csrf = csrfOf(await client.text("/webhooks", 200));
      const res = await client.post(`/webhooks/${hook.id}/unregister`, { _csrf: csrf, confirm: "yes" });
      await res.body?.cancel();
      assert.ok(res.status < 400, `unregister answered ${res.status}`);
    })();
    const answers = await underLoad({ ...hook, community, until: act, tag: "unreg", tailMs: 800 });
    await act;
    await t.app.deliveries.flush();
    const counts = tally(answers);
    assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, "unreg")), [], JSON.stringify(counts));
    assert.ok(counts[200] > 0 && counts[404] > 0, JSON.stringify(counts));
    assert.deepEqual(Object.keys(counts).sort(), ["200", "404"], JSON.stringify(counts));
  }, KEEP_ALL);
});

Deno.test("a community removed while its postbacks flow: each 200 stored once, the rest 401, none 500", async () => {
  await withHook(async (t, hook, client) => {
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const act = (async () => {
      await pause(800);
      const csrf = csrfOf(await client.text("/communities/sandbox-tenant", 200));
      const res = await client.post(`/communities/sandbox-tenant/remove`, { _csrf: csrf, confirm: "yes" });
      await res.body?.cancel();
      assert.equal(res.status, 303);
    })();
    const answers = await underLoad({ ...hook, community, until: act, tag: "gone", tailMs: 800 });
    await act;
    await t.app.deliveries.flush();
    const counts = tally(answers);
    assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, "gone")), [], JSON.stringify(counts));
    assert.ok(counts[200] > 0 && counts[401] > 0, JSON.stringify(counts));
    assert.deepEqual(Object.keys(counts).sort(), ["200", "401"], JSON.stringify(counts));
  }, KEEP_ALL);
});

Deno.test("the previous secret revoked while postbacks signed with it flow: accepted before, refused after, none lost", async () => {
  await withHook(async (t, hook, client) => {
    const path = "/communities/sandbox-tenant";
    const before = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const page = await client.text(path, 200);
    const form = { _csrf: csrfOf(page), name: before.name, baseUrl: before.baseUrl!, clientId: before.clientId! };
    const saved = await client.post(path, { ...form, clientSecret: btoa("the new secret, long enough") });
    await saved.body?.cancel();
    assert.equal(saved.status, 303);
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    let revokedAt = 0;
    const act = (async () => {
      await pause(800);
      const csrf = csrfOf(await client.text(path, 200));
      const res = await client.post(`${path}/revoke-previous-secret`, { _csrf: csrf });
      await res.body?.cancel();
      revokedAt = Date.now();
      assert.equal(res.headers.get("location"), `${path}?notice=secret-revoked`);
    })();
    const answers = await underLoad({
      ...hook,
      community,
      previous: before.clientSecret as string,
      until: act,
      tag: "revoke",
      tailMs: 800,
    });
    await act;
    await t.app.deliveries.flush();
    const counts = tally(answers);
    assert.deepEqual(
      lostOrDoubled(answers, await storedTitles(t.app.deliveries, "revoke")),
      [],
      JSON.stringify(counts),
    );
    const current = answers.filter((a) => !a.previous);
    assert.ok(current.every((a) => a.status === 200), "a postback signed with the current secret was refused");
    const late = answers.filter((a) => a.previous && a.at > revokedAt + 200);
    assert.ok(late.length > 0 && late.every((a) => a.status === 401), "the previous secret verifies after the revoke");
    assert.ok(answers.some((a) => a.previous && a.status === 200), "the previous secret never verified");
  }, KEEP_ALL);
});
