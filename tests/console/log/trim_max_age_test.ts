// The trimmer's kept count (["console_delivery_trim_count"]) across a change
// of `maxAgeMs`: the count's oldest row tells when a row it counted may have
// expired only under the `maxAgeMs` its rows were written with. A console
// restarted with a longer one must not trust a count whose rows expired by
// the shorter one, or it deletes rows its retention keeps.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

const LOG = "console_delivery_log";
const HOUR = 3_600_000;

async function logRows(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [LOG] })) n++;
  return n;
}

const items = (n: number, tag: string) => Array.from({ length: n }, (_, k) => ({ activity: { title: `${tag}${k}` } }));

Deno.test("a console restarted with a longer maxAgeMs counts the log before trimming by a count whose rows expired under the shorter one", async () => {
  const kv = await Deno.openKv(":memory:");
  const realNow = Date.now;
  try {
    // A console keeping rows an hour: 300 rows, counted and trimmed to its retention of 250, then stopped.
    const first = new DeliveryStore(kv, { retain: 250, maxAgeMs: HOUR });
    for (let n = 0; n < 3; n++) await first.add("h1", items(100, `a${n}-`));
    await first.flush();
    assert.equal(await logRows(kv), 250);
    await kv.delete(["console_delivery_trim_lease"]); // its holder stopped
    // Two hours on, every one of its rows has expired (KV's clean-up, done here at once); the shards still count them.
    for await (const entry of kv.list({ prefix: [LOG] })) await kv.delete(entry.key);
    Date.now = () => realNow() + 2 * HOUR;
    // Restarted keeping rows a week, same retention: 300 new rows, of which the retention keeps 250.
    const next = new DeliveryStore(kv, { retain: 250, maxAgeMs: 7 * 24 * HOUR });
    for (let n = 0; n < 3; n++) await next.add("h1", items(100, `b${n}-`));
    await next.flush(); // waits for the trim the rows started, then trims to the retention
    const left = await logRows(kv);
    assert.equal(
      left,
      250,
      `the trimmer left ${left} rows of 300 (retention 250), trimming by a count of expired rows`,
    );
  } finally {
    Date.now = realNow;
    kv.close();
  }
});
