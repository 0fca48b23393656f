/**
 * A receiver's every kind of answer, through `handle`, is counted under
 * API.md's `webhooks.outcome` for its status: `accepted`, `duplicate`,
 * `in_progress`, `unauthorized`, `bad_request`, `not_found`, `too_large`,
 * `timeout`, `method_not_allowed` and `error` (observers_test.ts checks the
 * mapping alone; this checks that each path of the receiver reports it).
 */

import assert from "node:assert/strict";
import { createReceiver, createWebhooks, observeMetrics } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, seed, signA } from "../_receiver.ts";

Deno.test("a receiver counts each answer under its outcome: 200, 200 duplicate, 409, 401, 400, 404, 413, 408, 405, 500", async () => {
  const kv = await Deno.openKv(":memory:");
  const seen: string[] = [];
  const stop = observeMetrics((name, value, attributes) => {
    if (name === "webhooks.receiver.requests") seen.push(`${attributes["webhooks.outcome"]} ${value}`);
    if (name === "webhooks.receiver.items") seen.push(`items ${value}`);
  });
  const release = Promise.withResolvers<void>();
  const entered = Promise.withResolvers<void>();
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const receiver = createReceiver(hooks, {
      onPostback: async ({ activity }) => {
        if (activity.verb === "boom") throw new Error("the consumer failed");
        entered.resolve();
        await release.promise;
      },
      now: () => NOW,
      maxBytes: 1_024,
      bodyTimeoutMs: 200,
    });
    const status = async (request: Request): Promise<number> => {
      const res = await receiver.handle(request);
      await res.body?.cancel();
      return res.status;
    };
    const json = (items: unknown) => JSON.stringify(items);
    const held = await signA(NOW - 1_000);
    const first = status(post({ authorization: held }, json([item()])));
    await entered.promise;
    const answers = [
      await status(post({ authorization: held }, json([item()]))), // a copy while the first is handled
      await status(post({}, json([item()]))),
      await status(post({ authorization: await signA(NOW - 2_000) }, "not json")),
      await status(post({ authorization: await signA(NOW - 3_000) }, json([item(`${REF_A}9`)]))),
      await status(post({}, "x".repeat(2_000))),
      await status(post({}, new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(10)) }))), // never ends
      await status(post({}, null, "GET")),
      await status(post({ authorization: await signA(NOW - 4_000) }, json([item(REF_A, "boom")]))),
    ];
    release.resolve();
    answers.unshift(await first);
    answers.push(await status(post({ authorization: held }, json([item()])))); // a copy once it is done
    assert.deepEqual(answers, [200, 409, 401, 400, 404, 413, 408, 405, 500, 200]);
    assert.deepEqual(seen.sort(), [
      "accepted 1",
      "bad_request 1",
      "duplicate 1",
      "error 1",
      "in_progress 1",
      "items 1",
      "method_not_allowed 1",
      "not_found 1",
      "timeout 1",
      "too_large 1",
      "unauthorized 1",
    ]);
  } finally {
    release.resolve();
    stop();
    kv.close();
  }
});
