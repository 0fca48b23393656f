// A receiver whose id is a hook record's own id (a hook registered with `/hooks/<its record id>` as its callback) is
// never adopted by another hook: a postback of another hook of the tenant whose callback names that path is refused,
// and the hook's own postbacks are still taken afterwards, not refused as another hook's.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { type TestConsole, withHook } from "./_helpers.ts";

async function sandboxHeader(t: TestConsole, timestamp: number): Promise<string> {
  const c = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
  return await signJiveExtn(
    { clientId: c.clientId!, jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant", timestamp },
    c.clientSecret!,
  );
}

async function send(t: TestConsole, url: string, ref: string, timestamp: number): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: await sandboxHeader(t, timestamp), "content-type": "application/json" },
    body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created", title: "Item" } }]),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("another hook whose callback names a record's own receiver path is not adopted there", async () => {
  await withHook(async (t, hook) => {
    const origin = new URL(hook.callback).origin;
    const own = `${t.origin}/sandbox/api/core/v3/webhooks/own`;
    await t.app.webhooks.save({ id: "own", tenantId: "sandbox-tenant", entity: { resources: { self: { ref: own } } } });
    const intruder = `${t.origin}/sandbox/api/core/v3/webhooks/intruder`;
    await t.app.webhooks.save({
      id: "intruder",
      tenantId: "sandbox-tenant",
      entity: { callback: `${origin}/hooks/own`, resources: { self: { ref: intruder } } },
    });
    const now = Date.now();
    assert.equal(await send(t, `${origin}/hooks/own`, intruder, now - 1), 404, "another hook adopted the path");
    assert.equal(await send(t, `${origin}/hooks/own`, own, now), 200, "the hook's own postback refused");
    assert.deepEqual((await t.app.deliveries.page({ status: "accepted" })).values.map((d) => d.hookId), ["own"]);
  });
});
