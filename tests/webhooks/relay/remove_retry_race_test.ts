// A worker that ends an attempt as a retry writes the entry again at a later
// due time. When that commit landed after a removal of its (unpinned)
// destination in another process listed the shared outbox, and before the
// removal deleted what it listed, the retried entry was behind the listing:
// it stayed in the outbox (its state for `forwards` deleted with the held
// copy) until due, a retry's wait (an hour here), for a worker to drop. The
// interleaving is forced: the remover's delete waits until the worker's
// attempt has ended in KV. Nothing of the entry may be left.

import assert from "node:assert/strict";
import { createRelay, type Relay } from "../../../webhooks/mod.ts";
import { until } from "./fixtures.ts";
import { dueKeys, withRetryDuringRemoval } from "./_retry_removal.ts";

const P = "r".repeat(64);

/** Makes the commit after the first `free` of `kv` wait for `gate`; `reached` resolves when it starts waiting. */
function holdCommit(kv: Deno.Kv, free: number, gate: Promise<void>): Promise<void> {
  const reached = Promise.withResolvers<void>();
  let started = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (started++ === free) {
        reached.resolve();
        await gate;
      }
      return await commit();
    };
    return op;
  };
  return reached.promise;
}

Deno.test("an entry retried while another process removes its destination is not left behind the removal, nor its state", async () => {
  const gate = Promise.withResolvers<void>();
  let listed: Promise<void> = Promise.resolve();
  // The removal's own commit goes; its first delete waits.
  const hold = (kvB: Deno.Kv) => void (listed = holdCommit(kvB, 1, gate.promise));
  await withRetryDuringRemoval(P, hold, async ({ kvA, a, b, destinationId, entryId, fail, stopWorker }) => {
    let later: Relay | null = null;
    try {
      const removing = b.destinations.remove(destinationId);
      await listed; // the removal listed the outbox: the held entry, not its retry
      fail(); // the attempt fails: a retry, due in an hour
      await until(async () => (await a.attempts(entryId)).length === 1, 10_000, "the attempt's end in KV");
      gate.resolve();
      assert.equal(await removing, true);
      await stopWorker();
      assert.equal(await a.destinations.get(destinationId), null);

      later = createRelay(kvA, { pollMs: 50 }); // the next worker
      const next = later.run();
      try {
        await until(
          async () => (await dueKeys(kvA)) === 0 && (await later!.forwards(P)).length === 0,
          10_000,
          "the retried entry of the removed destination deleted",
        );
      } finally {
        await next.stop();
      }
    } finally {
      gate.resolve();
      await later?.close();
    }
  });
});
