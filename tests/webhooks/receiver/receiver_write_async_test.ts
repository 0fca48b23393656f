// API.md, "Writing into KV in the claim's own commit": `write` is called
// synchronously, "it returns nothing and awaits nothing"; what it adds after
// an await would miss the commit that the 200 stands for. "If write throws,
// nothing of that postback is committed and the answer is 500." A write that
// is an async function is refused when the receiver is made; one that
// returns a promise is taken as one that threw, and its rejection does not
// end the process.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks, type Postback } from "../../../webhooks/mod.ts";
import { item, NOW, post, seed, signA } from "../_receiver.ts";

Deno.test("createReceiver() refuses a write that is an async function, naming 'write'", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    assert.throws(
      () => createReceiver(hooks, { write: async () => {} }),
      (e: Error) => e instanceof TypeError && /'write'/.test(e.message) && /synchronous/.test(e.message),
    );
  } finally {
    kv.close();
  }
});

Deno.test("write mode: a write that returns a promise answers 500, stores nothing, and the retry is delivered", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const late = (postback: Postback, atomic: Deno.AtomicOperation) =>
      new Promise<void>((_, reject) =>
        setTimeout(() => {
          atomic.set(["inbox", postback.postbackId, postback.index], "late");
          reject(new Error("the consumer failed after its await"));
        }, 20)
      );
    const awaiting = createReceiver(hooks, { write: late as unknown as () => void, now: () => NOW });
    const authorization = await signA();
    const res = await awaiting.handle(post({ authorization }, JSON.stringify([item(), item()])));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: "Internal error" });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the promise has settled, unhandled by anyone else
    const stored = async () => (await Array.fromAsync(kv.list({ prefix: ["inbox"] }))).map((e) => e.value);
    assert.deepEqual(await stored(), []);

    // Not claimed: the platform's retry of the same header is stored by a receiver whose write keeps the rules.
    const keeping = createReceiver(hooks, {
      write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], "kept"),
      now: () => NOW,
    });
    const retry = await keeping.handle(post({ authorization }, JSON.stringify([item(), item()])));
    assert.deepEqual([retry.status, await retry.json()], [200, { received: 2 }]);
    assert.deepEqual(await stored(), ["kept", "kept"]);
  } finally {
    kv.close();
  }
});
