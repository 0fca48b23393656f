// createReceiver(): what an accepted postback hands on: each item in order
// with API.md's shape, 200 { received }, and a hook of any self URL length.

import assert from "node:assert/strict";
import { item, NOW, post, REF_A, signA, withReceiver } from "../_receiver.ts";

Deno.test("handle() takes a postback to a stored hook whatever the length of its self URL", async () => {
  await withReceiver(async ({ receiver, delivered, hooks }) => {
    // The store keeps (and finds) a hook of any self URL; the receiver must not refuse what it stored.
    const ref = `https://a.example/api/core/v3/webhooks/${"9".repeat(9_000)}`;
    await hooks.save({ id: "hook-long", tenantId: "tenant-a", entity: { resources: { self: { ref } } } });
    assert.equal((await hooks.findByWebhookURL(ref))[0]?.id, "hook-long");
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item(ref)])));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 1 });
    assert.equal(delivered[0].webhook.id, "hook-long");
  });
});

Deno.test("handle() hands each item on in order, then answers 200 { received }", async () => {
  await withReceiver(async ({ receiver, delivered, hooks, attempts }) => {
    await hooks.save({ id: "hook-a2", tenantId: "tenant-a", entity: { resources: { self: { ref: REF_A + "0" } } } });
    const body = [item(REF_A, "jive:created"), item(REF_A + "0", "jive:liked"), item(REF_A, "jive:commented")];
    const res = await receiver.handle(post({ authorization: await signA(NOW - 1000) }, JSON.stringify(body)));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.deepEqual(await res.json(), { received: 3 });
    assert.deepEqual(delivered.map((p) => [p.webhook.id, p.activity.verb, p.index, p.count]), [
      ["hook-a", "jive:created", 0, 3],
      ["hook-a2", "jive:liked", 1, 3],
      ["hook-a", "jive:commented", 2, 3],
    ]);
    const [first] = delivered;
    // API.md's shape to a deep comparison; the extras are there to read.
    assert.deepEqual(first, {
      activity: body[0].activity,
      webhook: first.webhook,
      community: first.community,
      receivedAt: NOW,
    });
    assert.deepEqual(Object.keys(first), ["activity", "webhook", "community", "receivedAt"]);
    assert.deepEqual(first.activity, body[0].activity);
    assert.equal(first.community.tenantId, "tenant-a");
    assert.equal(first.receivedAt, NOW);
    assert.match(first.postbackId, /^[0-9a-f]{64}$/);
    assert.ok(delivered.every((p) => p.postbackId === first.postbackId));
    assert.equal(attempts[0].postbackId, first.postbackId);
    assert.equal(attempts[0].timestampAgeMs, 1000);
    assert.equal(attempts[0].itemCount, 3);
    // An empty array is accepted and claims its header for no hook: its copy is a duplicate, a postback
    // of that header to a hook is not (a header is claimed per hook).
    const empty = await receiver.handle(post({ authorization: await signA(NOW - 2) }, "[]"));
    assert.deepEqual(await empty.json(), { received: 0 });
    const copy = await receiver.handle(post({ authorization: await signA(NOW - 2) }, "[]"));
    assert.deepEqual(await copy.json(), { received: 0, duplicate: true });
    const again = await receiver.handle(post({ authorization: await signA(NOW - 2) }, JSON.stringify([item()])));
    assert.deepEqual(await again.json(), { received: 1 });
    assert.equal(delivered.length, 4);
  });
});
