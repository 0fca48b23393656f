// The platform's webhook ids are canonical integers: "1001" names hook 1001,
// and "01001", "+1001", "1001.0" or " 1001" name no hook at all. The REST
// API answers those 404 in the platform's error shape (and changes nothing);
// the trigger and the redelivery refuse them 404 as any unknown id.

import assert from "node:assert/strict";
import { ANTI_HIJACKING_PREFIX } from "../../sandbox/mod.ts";
import { withServed } from "./_served.ts";

const NOT_CANONICAL = ["01001", "001001", "+1001", "1001.0", " 1001", "1001 ", "1e3"];

async function jiveBody(res: Response): Promise<unknown> {
  const text = await res.text();
  assert.ok(text.startsWith(ANTI_HIJACKING_PREFIX), `no anti-hijacking line in ${text.slice(0, 80)}`);
  return JSON.parse(text.slice(ANTI_HIJACKING_PREFIX.length));
}

Deno.test("sandbox: a webhook id that is not a canonical integer is 404 in the platform's error shape, and changes nothing", async () => {
  await withServed(async ({ base, sandbox, origin, callback }) => {
    const hook = await sandbox.createHook(origin, { events: ["user_account"], callback }) as { id: string };
    assert.equal(hook.id, "1001");
    const tokens = await sandbox.issueTokens();
    const headers = { Authorization: `Bearer ${tokens.accessToken}`, "Content-Type": "application/json" };
    const body = JSON.stringify({ events: ["user_session"], callback, enabled: false });
    for (const id of NOT_CANONICAL) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await fetch(`${base}/api/core/v3/webhooks/${encodeURIComponent(id)}`, {
          method,
          headers,
          ...(method === "PUT" ? { body } : {}),
        });
        assert.equal(res.status, 404, `${method} ${JSON.stringify(id)}`);
        assert.deepEqual(await jiveBody(res), {
          error: { status: 404, message: `No webhook with id ${JSON.stringify(id)}` },
        }, `${method} ${JSON.stringify(id)}`);
      }
    }
    // Hook 1001 is as it was made, and its canonical id still finds it.
    const same = await fetch(`${base}/api/core/v3/webhooks/1001`, { headers });
    assert.equal(same.status, 200);
    const entity = await jiveBody(same) as { events: string[]; enabled: boolean };
    assert.deepEqual([entity.events, entity.enabled], [["user_account"], true]);
  });
});

Deno.test("sandbox: the trigger and the redelivery refuse a non-canonical webhook id as unknown (404)", async () => {
  await withServed(async ({ base, sandbox, origin, callback }) => {
    await sandbox.createHook(origin, { events: ["user_account"], callback });
    const { delivered } = await sandbox.trigger({ webhookId: "1001" });
    const timestamp = delivered[0].timestamp!;
    for (const webhookId of NOT_CANONICAL) {
      const json = { "Content-Type": "application/json", Origin: origin };
      const trigger = await fetch(`${base}/trigger`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ webhookId }),
      });
      assert.equal(trigger.status, 404, `trigger ${JSON.stringify(webhookId)}`);
      assert.deepEqual(await trigger.json(), { error: `No webhook with id ${JSON.stringify(webhookId)}` });
      const again = await fetch(`${base}/redeliver`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ webhookId, timestamp }),
      });
      assert.equal(again.status, 404, `redeliver ${JSON.stringify(webhookId)}`);
      assert.deepEqual(await again.json(), { error: `No webhook with id ${JSON.stringify(webhookId)}` });
    }
  });
});
