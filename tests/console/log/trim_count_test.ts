// The trimmer's count of the log when a process takes the trimming lease
// anew (a console started over a log another, or its earlier run, left): it
// takes the count the last holder made, kept in KV, while that is younger
// than the recount period, instead of listing the whole log (50,000 rows:
// 0.2 s of the main thread, three times over while postbacks land, which
// made a restarted console answer 1.7-4.4x slower at first). Rows that may
// have expired since that count still make it count before it deletes.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

const LOG = "console_delivery_log";
const TRIMMED: Deno.KvKey = ["console_delivery_trimmed"];

/** Counts the log's rows that `kv.list` yields from here on. */
function countListedRows(kv: Deno.Kv): { rows: number } {
  const seen = { rows: 0 };
  const list = kv.list.bind(kv);
  const inLog = (selector: Deno.KvListSelector) =>
    ("prefix" in selector && selector.prefix[0] === LOG) || ("start" in selector && selector.start[0] === LOG);
  kv.list = (<T>(selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    const rows = list<T>(selector, options);
    if (!inLog(selector)) return rows;
    return (async function* () {
      for await (const entry of rows) seen.rows++, yield entry;
    })() as unknown as Deno.KvListIterator<T>;
  }) as Deno.Kv["list"];
  return seen;
}

async function logRows(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [LOG] })) n++;
  return n;
}

/** Resolves once the trimmed count's entry is one `until` takes (a trim or a count sets it). */
async function trimmedUntil(kv: Deno.Kv, until: (entry: Deno.KvEntryMaybe<Deno.KvU64>) => boolean): Promise<void> {
  for await (const [entry] of kv.watch<[Deno.KvU64]>([TRIMMED])) if (until(entry)) return;
  throw new Error("the watch ended");
}

const items = (n: number, tag: string) => Array.from({ length: n }, (_, k) => ({ activity: { title: `${tag}${k}` } }));

/**
 * A log of 300 rows counted and trimmed to 250 by a first console, which then
 * stops (its count made `countAgeMs` ago); a second writes 40 rows, past the
 * slack, and trims in the background: resolves with the rows its trimmer
 * listed from the log.
 */
async function restartedTrim(kv: Deno.Kv, countAgeMs: number): Promise<number> {
  const first = new DeliveryStore(kv, { retain: 250 });
  for (let n = 0; n < 3; n++) await first.add("h1", items(100, `a${n}-`));
  await first.flush(); // counts the log (300 rows) and trims it to 250
  assert.equal(await logRows(kv), 250);
  const count = await kv.get<{ at: number; oldest: number }>(["console_delivery_trim_count"]);
  assert.ok(count.value, "the count is kept");
  await kv.set(count.key, { ...count.value, at: count.value.at - countAgeMs });
  await kv.delete(["console_delivery_trim_lease"]); // its holder stopped
  const listed = countListedRows(kv);
  // A console started over that log: 40 rows past the retention, past the slack, start a trim in the background.
  const next = new DeliveryStore(kv, { retain: 250 });
  await next.add("h1", items(40, "b"));
  await trimmedUntil(kv, (entry) => entry.value?.value === 90n); // the 50 trimmed before and these 40
  const trimmerListed = listed.rows;
  assert.equal(await logRows(kv), 250);
  await next.flush();
  return trimmerListed;
}

Deno.test("a process that takes the trimming lease after another counted the log trims by that count, without listing the log", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const listed = await restartedTrim(kv, 0);
    assert.ok(listed < 290, `the trimmer listed ${listed} rows of a log of 290 to trim 40: it counted it`);
  } finally {
    kv.close();
  }
});

Deno.test("a process started more than 10 minutes after the log's last count trims by it too, not counting the log at start", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const listed = await restartedTrim(kv, 11 * 60_000);
    assert.ok(listed < 290, `the trimmer listed ${listed} rows of a log of 290 to trim 40: it counted it at start`);
  } finally {
    kv.close();
  }
});

Deno.test("a process that takes the count of an earlier holder counts the log before deleting once a row it counted may have expired", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const maxAgeMs = 4_000;
    const first = new DeliveryStore(kv, { retain: 50, maxAgeMs });
    await first.add("h1", items(40, "a"));
    const olderEnd = Date.now();
    await first.flush(); // counts the log: 40 rows, the oldest numbered before olderEnd
    await kv.delete(["console_delivery_trim_lease"]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, olderEnd + maxAgeMs + 100 - Date.now())));
    // Past their maxAgeMs: KV expires them (its clean-up, done here at once). The written shards still count them.
    for await (const entry of kv.list({ prefix: [LOG] })) await kv.delete(entry.key);
    const before = (await kv.get(TRIMMED)).versionstamp;
    const next = new DeliveryStore(kv, { retain: 50, maxAgeMs });
    await next.add("h1", items(48, "b")); // 88 by the count, 38 past the retention; 48 in the log
    await trimmedUntil(kv, (entry) => entry.versionstamp !== before);
    assert.equal(await logRows(kv), 48, "rows the retention keeps were trimmed by a count that held expired rows");
    await next.flush();
  } finally {
    kv.close();
  }
});
