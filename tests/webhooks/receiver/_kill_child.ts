// A write-mode receiver in its own process, for the kill test: opens the KV
// named by the first argument (a file or a KV Connect URL), serves
// createReceiver on 127.0.0.1 (port 0), prints "port <n>", and runs until
// killed. Each item goes into the claim's commit as a row of its own under
// ["kill_items", postbackId, index, <a fresh id per write call>], so a
// postback committed twice leaves two rows per item instead of overwriting
// one; the row holds the item's activity as received, the hook's id and the
// postback's item count.

import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";

/**
 * The answer's way back to the platform: held a little after the commit, so
 * that a kill finds postbacks committed but not yet answered, whose copies
 * are then duplicates.
 */
const ANSWER_DELAY_MS = 30;

const kv = await Deno.openKv(Deno.args[0]);
const receiver = createReceiver(createWebhooks(kv), {
  write: (postback, atomic) => {
    atomic.set(["kill_items", postback.postbackId, postback.index, crypto.randomUUID()], {
      activity: postback.activity,
      hook: postback.webhook.id,
      count: postback.count,
    });
  },
});
Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(`port ${port}`) },
  async (request) => {
    const response = await receiver.handle(request);
    await new Promise((resolve) => setTimeout(resolve, ANSWER_DELAY_MS));
    return response;
  },
);
