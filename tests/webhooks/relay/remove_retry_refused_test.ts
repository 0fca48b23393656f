// A retry whose commit is refused because its destination was removed (the removal's mark) is not a lost lease:
// no worker will ever deliver it. Here the removal's process dies (its KV commits fail) after the commit that
// removes the destination and before it deletes the waiting entries, while a worker is attempting one of them. The
// attempt fails: its retry is refused, and the entry must go at once, with its state for `forwards` (keeping the
// attempt's record), not sit leased for the lease's 30 s showing as pending, until a worker retakes it and drops it.

import assert from "node:assert/strict";
import { until } from "./fixtures.ts";
import { dueKeys, withRetryDuringRemoval } from "./_retry_removal.ts";

const P = "q".repeat(64);

/** Makes every commit of `kv` after the first `free` throw, as a process killed there would leave them undone. */
function dieAfter(kv: Deno.Kv, free: number): void {
  let started = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => started++ < free ? commit() : Promise.reject(new Error("killed"));
    return op;
  };
}

Deno.test("a retry refused because its destination was removed drops the entry at once, its attempt kept", async () => {
  // The removal's own commit goes; the deletes of its entries never come.
  const hold = (kvB: Deno.Kv) => dieAfter(kvB, 1);
  await withRetryDuringRemoval(P, hold, async ({ kvA, a, b, destinationId, entryId, fail }) => {
    await assert.rejects(b.destinations.remove(destinationId), /killed/);
    assert.equal(await a.destinations.get(destinationId), null);
    fail(); // the attempt fails: a retry, which the removal's mark refuses
    await until(async () => (await a.attempts(entryId)).length === 1, 10_000, "the attempt's record");
    await until(
      async () => (await dueKeys(kvA)) === 0 && (await a.forwards(P)).length === 0,
      10_000, // well under the lease's 30 s, with room for a loaded machine (3 s failed once beside other suites)
      "the refused retry's entry and its state deleted (not left leased for 30 s)",
    );
    assert.equal((await a.attempts(entryId)).length, 1, "the attempt's record is kept");
  });
});
