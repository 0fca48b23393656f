// A receiver whose `write` sums a counter that holds something other than a
// 64-bit counter (an operator's hand edit, a bad write): Deno KV refuses the
// sum at the commit yet keeps the mutations added before it. The postback
// is answered 500 with nothing of it stored, not its claim either, so the
// platform's retry is stored once the counter is mended, not taken for a copy.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { post, seed, signA } from "../_receiver.ts";
import { body, withWriter } from "./_write_bench.ts";

Deno.test("a receiver whose write sums a junk counter answers 500 and stores nothing; the retry stores it once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await seed(createWebhooks(kv));
    await kv.set(["wake"], "junk");
    await withWriter(async ({ handle, inbox }) => {
      const auth = await signA();
      const first = await handle(post({ authorization: auth }, body()));
      assert.equal(first.status, 500);
      assert.deepEqual(await inbox(), [], "no item of a postback answered 500");
      const claims = await Array.fromAsync(kv.list({ prefix: ["webhook_postback_claim"] }));
      assert.deepEqual(claims, [], "no claim of a postback answered 500: its retry must not be a duplicate");
      await kv.delete(["wake"]);
      const retry = await handle(post({ authorization: auth }, body()));
      assert.equal(retry.status, 200);
      assert.deepEqual(await retry.json(), { received: 1 });
      assert.equal((await inbox()).length, 1);
    }, {
      write: (postback, atomic) => {
        atomic.set(["inbox", postback.postbackId, postback.index], { verb: postback.activity.verb });
        atomic.sum(["wake"], 1n);
      },
    }, kv);
  } finally {
    kv.close();
  }
});
