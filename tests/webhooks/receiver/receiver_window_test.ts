// API.md, "Receiving postbacks": createReceiver's `maxAgeMs` and
// `maxFutureMs` set the window of `verifyJiveExtn` (default 5 min back and
// 30 s ahead), measured on `now`; the postback handed on is
// `{ activity, webhook, community, receivedAt }` with receivedAt that time.

import assert from "node:assert/strict";
import { item, NOW, post, signA, withReceiver } from "../_receiver.ts";
import type { Receiver } from "../../../webhooks/mod.ts";

/** The status of a one-item postback to hook A signed at `timestamp`. */
async function statusAt(receiver: Receiver, timestamp: number): Promise<number> {
  const res = await receiver.handle(post({ authorization: await signA(timestamp) }, JSON.stringify([item()])));
  await res.body?.cancel();
  return res.status;
}

Deno.test("handle() refuses a header a millisecond outside the default window: 5 min back, 30 s ahead", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    assert.equal(await statusAt(receiver, NOW - 300_001), 401);
    assert.equal(await statusAt(receiver, NOW + 30_001), 401);
    assert.equal(delivered.length, 0);
  });
});

Deno.test("createReceiver() takes maxAgeMs and maxFutureMs as the window, on its own clock", async () => {
  await withReceiver(async ({ receiver, delivered, clock }) => {
    assert.equal(await statusAt(receiver, NOW - 60_000), 200);
    assert.equal(await statusAt(receiver, NOW - 60_001), 401);
    assert.equal(await statusAt(receiver, NOW - 120_000), 401); // inside the default window, outside this one
    assert.equal(await statusAt(receiver, NOW), 200);
    assert.equal(await statusAt(receiver, NOW + 1), 401);
    clock.now = NOW + 10_000; // the window moves with `now`
    assert.equal(await statusAt(receiver, NOW + 1), 200);
    assert.equal(await statusAt(receiver, NOW - 60_000), 401);
    assert.equal(delivered.length, 3);
  }, { maxAgeMs: 60_000, maxFutureMs: 0 });
});

Deno.test("the postback handed on is the item's activity, the local record, the community and now() as receivedAt", async () => {
  await withReceiver(async ({ receiver, delivered, clock }) => {
    clock.now = NOW + 1_234;
    const sent = { verb: "jive:liked", object: { id: 7, tags: ["a", "b"] }, published: "2026-01-01T00:00:00Z" };
    const body = JSON.stringify([{ webhook: "https://a.example/api/core/v3/webhooks/1", activity: sent }]);
    const res = await receiver.handle(post({ authorization: await signA() }, body));
    assert.deepEqual([res.status, await res.json()], [200, { received: 1 }]);
    assert.equal(delivered.length, 1);
    const [postback] = delivered;
    assert.deepEqual(postback.activity, sent);
    assert.equal(postback.webhook.id, "hook-a");
    assert.equal(postback.webhook.tenantId, "tenant-a");
    assert.equal(postback.community.name, "A");
    assert.equal(postback.community.tenantId, "tenant-a");
    assert.equal(postback.receivedAt, NOW + 1_234);
  });
});
