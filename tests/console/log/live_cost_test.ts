// What a wake of the live view costs: the reader is woken at every commit of
// the log under load, and a settle window then holds thousands of rows
// (about 20,000 at 2,000 rows a second). A wake that finds one new row must
// read about that row, not the whole window again; a late commit below the
// rows read is still given at that wake.

import assert from "node:assert/strict";
import { DeliveryStore, LiveReader, numberAt } from "../../../console/log/mod.ts";
import { counting } from "../_kv_faults.ts";
import { postback } from "../_postback.ts";

/** A random integer below `n` from a seeded generator (mulberry32). */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

Deno.test("a wake of the live reader after one new row reads a few entries, not the settle window's 2,000 rows", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new DeliveryStore(kv, { retain: 10_000 });
    const counted = counting(kv);
    const reader = new LiveReader(counted.kv, { settleMs: 10_000 });
    await reader.start();
    for (let n = 0; n < 2_000; n += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, k) => store.add("h1", [{ activity: { title: `t${n + k}` } }])));
    }
    assert.equal((await reader.next()).length, 2_000);
    for (let round = 0; round < 3; round++) {
      const [row] = await store.add("h1", [{ activity: { title: `new ${round}` } }]);
      const before = counted.read();
      assert.deepEqual((await reader.next()).map((view) => view.id), [row.id]);
      const read = counted.read() - before;
      assert.ok(read <= 10, `a wake read ${read} entries for one new row`);
    }
  } finally {
    kv.close();
  }
});

Deno.test("commits landing in any order within the window are each given once; those below it never, and they do not stall the rest", async () => {
  for (let seed = 1; seed <= 20; seed++) {
    const kv = await Deno.openKv(":memory:");
    try {
      const pick = random(seed);
      const store = new DeliveryStore(kv, { retain: 10_000, settleMs: 5_000 });
      const reader = store.liveReader();
      await reader.start();
      const floor = numberAt(Date.now() - 4_000); // inside the window for the whole test
      const used = new Set<number>();
      const expected = new Set<string>();
      const given: string[] = [];
      for (let step = 0; step < 60; step++) {
        const kind = pick(10);
        if (kind < 6) {
          // Another process's commit at a number anywhere in the window, below numbers already read too.
          let seq;
          do seq = floor + pick(8_000 * 4096); while (used.has(seq));
          used.add(seq);
          const op = kv.atomic();
          store.write(postback(`s${seed}-${step}`, seq), op);
          assert.ok((await op.commit()).ok);
          expected.add(`s${seed}-${step}`);
        } else if (kind < 7) {
          // A commit so late it lands below the window: never given.
          const op = kv.atomic();
          store.write(postback(`late${seed}-${step}`, numberAt(Date.now() - 60_000) + step), op);
          assert.ok((await op.commit()).ok);
        } else if (kind < 8) {
          const [view] = await store.add("h1", [{ activity: { title: `a${seed}-${step}` } }]);
          expected.add(view.title);
        } else {
          given.push(...(await reader.next()).map((view) => view.title));
        }
      }
      given.push(...(await reader.next()).map((view) => view.title));
      assert.equal(new Set(given).size, given.length, `seed ${seed}: a delivery given twice`);
      assert.deepEqual(new Set(given), expected, `seed ${seed}`);
    } finally {
      kv.close();
    }
  }
});
