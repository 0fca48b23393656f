// The log's counts (the written shards, the trimmed count) hand-edited: set
// lower, deleted, or junk. Trimming counts the log again rather than trim
// rows within the retention (it took a batch of 200 of the 350 rows it had
// to keep), and a console started on such a KV writes on: a `sum` on a junk
// shard failed every commit (the rows stored, the postback answered with an
// error, never counted).

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

const WRITTEN = Array.from({ length: 8 }, (_, i): Deno.KvKey => ["console_delivery_written", i]);
const TRIMMED: Deno.KvKey = ["console_delivery_trimmed"];

async function rows(kv: Deno.Kv): Promise<number[]> {
  const out: number[] = [];
  for await (const e of kv.list({ prefix: ["console_delivery_log"] })) out.push(e.key[1] as number);
  return out;
}

/** Adds `postbacks` postbacks of 10 items each. */
async function addTens(store: DeliveryStore, postbacks: number, tag: string): Promise<void> {
  for (let n = 0; n < postbacks; n++) {
    await store.add("h1", Array.from({ length: 10 }, (_, i) => ({ activity: { title: `${tag}${n}-${i}` } })));
  }
}

const EDITS: [string, (kv: Deno.Kv) => Promise<unknown>][] = [
  ["the written shards set to 0", (kv) => Promise.all(WRITTEN.map((key) => kv.set(key, new Deno.KvU64(0n))))],
  ["the trimmed count deleted", (kv) => kv.delete(TRIMMED)],
  ["the trimmed count set to junk", (kv) => kv.set(TRIMMED, "junk")],
];

for (const [name, edit] of EDITS) {
  Deno.test(`${name}: trimming counts the log again and keeps the retention's newest rows`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      const store = new DeliveryStore(kv, { retain: 300 });
      await addTens(store, 40, "a");
      await store.flush();
      assert.equal((await rows(kv)).length, 300);
      await edit(kv);
      await addTens(store, 5, "b"); // the trimmer looks as they are written
      await store.flush();
      const kept = await rows(kv);
      assert.equal(kept.length, 300, `${kept.length} rows kept of 350`);
      assert.deepEqual((await store.list({ limit: 1 }))[0].title, "b4-9");
    } finally {
      kv.close();
    }
  });
}

Deno.test("junk in the written shards: a console started on that KV writes without an error, and trims", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await addTens(new DeliveryStore(kv, { retain: 300 }), 35, "a");
    for (const key of WRITTEN) await kv.set(key, "junk");
    await kv.delete(["console_delivery_trim_lease"]); // the first console stopped: its trimming lease ran out
    const store = new DeliveryStore(kv, { retain: 300 });
    await addTens(store, 5, "b");
    await store.flush();
    assert.equal((await rows(kv)).length, 300);
    assert.equal((await store.list({ limit: 1 }))[0].title, "b4-9");
  } finally {
    kv.close();
  }
});
