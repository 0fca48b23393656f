// Trimming while rows expire (maxAgeMs) under one holder of the lease: the
// written shards still count the expired rows, so the count runs high until
// the log is counted again. Trimming must not delete rows the retention
// keeps because of it.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

async function logRows(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: ["console_delivery_log"] })) n++;
  return n;
}

/** Waits until the log's row count has not moved for 300 ms (the trimmer works in the background). */
async function quiet(kv: Deno.Kv): Promise<number> {
  let last = -1;
  for (let still = 0; still < 3;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await logRows(kv);
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

Deno.test("rows that expire under the same holder of the trimming lease do not make it trim rows the retention keeps", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const maxAgeMs = 5_000;
    const store = new DeliveryStore(kv, { retain: 50, maxAgeMs });
    const add = (title: string) => store.add("h1", [{ activity: { title } }]);
    for (let n = 0; n < 40; n++) await add(`a${n}`);
    const olderEnd = Date.now();
    await sleepUntil(olderEnd + 2_000);
    for (let n = 0; n < 20; n++) await add(`b${n}`);
    // The store took the trimming lease and counted the log: 60 rows, 10 past the retention, within the slack.
    assert.equal(await quiet(kv), 60);
    // Past the 40 oldest rows' maxAgeMs: KV expires them (its clean-up, done here at once); the lease is still
    // the store's, so it counted the log 5 s ago.
    await sleepUntil(olderEnd + maxAgeMs + 100);
    const old = await store.list({ limit: 40, forward: true, after: 0 });
    assert.ok(old.every((view) => view.title.startsWith("a")));
    for (const view of old) await kv.delete(["console_delivery_log", view.seq]);
    for (let n = 0; n < 40; n++) await add(`c${n}`);
    // 60 rows, none expired, 10 past the retention: nothing to trim (at most down to 50).
    const left = await quiet(kv);
    assert.ok(left >= 50, `${left} rows left of 60 with a retention of 50: trimmed by a count that held expired rows`);
  } finally {
    kv.close();
  }
});
