// API.md: relay.write "adds one outbox entry per enabled destination ... in
// the claim's commit; usable as `write` or inside one", and "If write
// throws, nothing of that postback is committed". Inside a consumer's write
// that throws after it, relay.write leaves nothing to forward; the
// platform's retry is forwarded once.

import assert from "node:assert/strict";
import { createReceiver, createRelay, createWebhooks, type Postback } from "../../../webhooks/mod.ts";
import { NOW, post, REF_A, seed, signA } from "../_receiver.ts";
import { startApp, until } from "./fixtures.ts";

Deno.test("relay.write inside a write that then throws forwards nothing; the retry is forwarded once", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await relay.destinations.add({ url: app.url, hookIds: ["hook-a"] });
    let fail = true;
    let postbackId = "";
    const receiver = createReceiver(hooks, {
      write: (postback: Postback, atomic) => {
        postbackId = postback.postbackId;
        relay.write(postback, atomic);
        atomic.set(["inbox", postback.postbackId, postback.index], postback.activity);
        if (fail) throw new Error("the consumer failed after relay.write");
      },
      now: () => NOW,
    });
    const request = async () =>
      await receiver.handle(
        post(
          { authorization: await signA() },
          JSON.stringify([{ webhook: REF_A, activity: { verb: "jive:created" } }]),
        ),
      );
    const failed = await request();
    assert.equal(failed.status, 500);
    await failed.body?.cancel();
    assert.deepEqual(await relay.forwards(postbackId), [], "no entry from the commit that did not happen");

    fail = false;
    const retry = await request();
    assert.deepEqual([retry.status, await retry.json()], [200, { received: 1 }]);
    const worker = relay.run();
    await app.waitFor(1);
    const [entry] = await relay.forwards(postbackId);
    await until(async () => (await relay.forwards(postbackId))[0]?.state === "delivered", 5_000, "delivered");
    await worker.stop();
    assert.equal((await relay.forwards(postbackId)).length, 1);
    assert.deepEqual(app.received.map((r) => r.id), [entry.entryId]);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
