// The receiver's `write` is the relay's: a signed postback accepted by
// createReceiver reaches the app, from the claim's own commit; a copy of the
// same postback (a replay) adds nothing.

import assert from "node:assert/strict";
import { createReceiver, createRelay, createWebhooks } from "../../../webhooks/mod.ts";
import { NOW, post, REF_A, seed, signA } from "../_receiver.ts";
import { startApp, until } from "./fixtures.ts";

Deno.test("a postback accepted by a receiver with write: relay.write reaches the app once, a replay adds nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await relay.destinations.add({ url: app.url, hookIds: ["hook-a"] });
    const receiver = createReceiver(hooks, { write: relay.write, now: () => NOW });
    const worker = relay.run();
    const body = JSON.stringify([
      { webhook: REF_A, activity: { verb: "jive:created", n: 1 } },
      { webhook: REF_A, activity: { verb: "jive:modified", n: 2 } },
    ]);
    const headers = { authorization: await signA(), "content-type": "application/json" };
    const first = await receiver.handle(post(headers, body));
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { received: 2 });
    const replay = await receiver.handle(post(headers, body));
    assert.deepEqual(await replay.json(), { received: 0, duplicate: true });
    await app.waitFor(2);
    await new Promise((r) => setTimeout(r, 200));
    await worker.stop();
    assert.equal(app.received.length, 2);
    const bodies = app.received.map((r) => JSON.parse(r.body)).sort((a, b) => a.data.index - b.data.index);
    assert.deepEqual(bodies.map((b) => [b.type, b.data.webhook, b.data.tenantId, b.data.index, b.data.activity.n]), [
      ["jive:created", "hook-a", "tenant-a", 0, 1],
      ["jive:modified", "hook-a", "tenant-a", 1, 2],
    ]);
    assert.equal(bodies[0].timestamp, new Date(NOW).toISOString());
    assert.equal(bodies[0].data.postbackId, bodies[1].data.postbackId);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a write before the relay knows its destinations is kept and fanned out by a worker", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const admin = createRelay(kv, { allowPrivateNetwork: true });
    await admin.destinations.add({ url: app.url });
    await admin.close();
    // A fresh relay (a process that just started): its first write cannot know the list yet.
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    const receiver = createReceiver(hooks, { write: relay.write, now: () => NOW });
    const body = JSON.stringify([{ webhook: REF_A, activity: { verb: "jive:created" } }]);
    const answer = await receiver.handle(post({ authorization: await signA() }, body));
    assert.equal(answer.status, 200);
    await answer.body?.cancel();
    let waiting = 0;
    for await (const _ of kv.list({ prefix: ["relay_fanout"] })) waiting++;
    assert.equal(waiting, 1);
    const worker = relay.run();
    await app.waitFor(1);
    await until(
      async () => {
        for await (const _ of kv.list({ prefix: ["relay_fanout"] })) return false;
        return true;
      },
      5_000,
      "the fan-out",
    );
    await worker.stop();
    await relay.close();
    assert.equal(app.received.length, 1);
  } finally {
    await app.close();
    kv.close();
  }
});
