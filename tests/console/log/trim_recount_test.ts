// The trimmer's count of the log while postbacks land: it lists the log once
// and takes the written count read after the listing (a row written meanwhile
// is counted as written, maybe not as listed: a row more is kept, never one
// less). Listing it again until no row lands meanwhile meant three listings of
// the whole log under load (50,000 rows: 0.2 s of the main thread each), every
// ten minutes and at a restart over a log no count was kept for.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

const LOG = "console_delivery_log";

const items = (n: number, tag: string) => Array.from({ length: n }, (_, k) => ({ activity: { title: `${tag}${k}` } }));

async function logRows(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [LOG] })) n++;
  return n;
}

/**
 * From now on, each listing of the log that reaches `whole` rows counts as a
 * listing of the whole log, and a row is written by `other` while each
 * listing that may reach them runs.
 */
function landingDuringListings(kv: Deno.Kv, other: DeliveryStore, whole: number): { listings: number } {
  const seen = { listings: 0 };
  const list = kv.list.bind(kv);
  let k = 0;
  let writing = false;
  kv.list = (<T>(selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    const rows = list<T>(selector, options);
    if (!("prefix" in selector) || selector.prefix[0] !== LOG) return rows;
    return (async function* () {
      let n = 0;
      for await (const entry of rows) {
        // One row a listing that may read the whole log (not the trim's reads of its oldest few, nor a listing
        // that the write itself makes).
        if (n++ === 0 && !writing && (options?.limit ?? Infinity) >= whole) {
          writing = true;
          await other.add("h2", items(1, `during${k++}-`));
          writing = false;
        }
        if (n === whole) seen.listings++;
        yield entry;
      }
    })() as unknown as Deno.KvListIterator<T>;
  }) as Deno.Kv["list"];
  return seen;
}

Deno.test("the trimmer's count lists the log once while rows land, and trims to no fewer rows than the retention", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const writer = new DeliveryStore(kv, { retain: 1_000_000 });
    for (let n = 0; n < 3; n++) await writer.add("h1", items(100, `a${n}-`));
    await writer.flush();
    await kv.delete(["console_delivery_trim_count"]); // no count kept: the next holder counts the log
    await kv.delete(["console_delivery_trim_lease"]);
    const other = new DeliveryStore(kv, { retain: 1_000_000 });
    const seen = landingDuringListings(kv, other, 300);
    const store = new DeliveryStore(kv, { retain: 250 });
    await store.add("h1", items(1, "b"));
    await store.flush(); // takes the lease, counts the log and trims it
    assert.equal(seen.listings, 1, `the log was listed whole ${seen.listings} times for one count`);
    const rows = await logRows(kv);
    assert.ok(rows >= 250, `${rows} rows left: the retention keeps 250`);
    await other.flush();
  } finally {
    kv.close();
  }
});
