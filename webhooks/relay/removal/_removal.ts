// A removed destination's waiting entries. A pinned one's partition
// (["relay_due", destinationId, ...]) is deleted by its removal, after the
// commit that removes it; a worker's housekeeping deletes what a removal
// killed before it was done left, and an entry written meanwhile by a process
// whose list of destinations still had it (it trusts that list for a second).
// An unpinned one's entries are found in the shared partition by their value.

import { retryWhileLocked } from "../../kv/mod.ts";
import { deleteForward } from "../_forwards.ts";
import { entryAt, type StoredEntry } from "../_entry.ts";
import { destinationKey, duePrefix, SHARED_PARTITION, takeKey } from "../_keys.ts";

/** Entries deleted per commit: two deletes each (the entry and its state for `forwards`), within 1,000 mutations. */
const DROP_BATCH = 400;

/** Deletes the waiting entries of a pinned destination's own partition, a few hundred per commit, then its take counter. */
export async function dropPartition(kv: Deno.Kv, partition: string): Promise<void> {
  while (true) {
    const atomic = kv.atomic();
    let count = 0;
    for await (const entry of kv.list<StoredEntry>({ prefix: duePrefix(partition) }, { limit: DROP_BATCH })) {
      atomic.delete(entry.key);
      deleteForward(atomic, entryAt(entry.key, entry.value));
      count++;
    }
    if (count === 0) {
      await retryWhileLocked(() => kv.delete(takeKey(partition)));
      return;
    }
    // Another process's write lock on a shared KV file is waited out, as the removal's own commit does: thrown,
    // it failed a removal already made.
    await retryWhileLocked(() => atomic.commit());
  }
}

/**
 * Deletes the entries waiting for unpinned destination `destinationId` in the shared partition, with their state for
 * `forwards`, a few hundred per commit. Each commit bumps the partition's take counter as a take does, so a worker
 * that listed one of them takes nothing from its stale list; one it holds already ends its turn on a refused check
 * (or, delivered meanwhile, as delivered). Those left by a removal killed midway are dropped by a worker when due.
 */
export async function dropShared(kv: Deno.Kv, destinationId: string): Promise<void> {
  let atomic = kv.atomic();
  let count = 0;
  const commit = async () => {
    await retryWhileLocked(() => atomic.sum(takeKey(SHARED_PARTITION), 1n).commit());
    atomic = kv.atomic();
    count = 0;
  };
  for await (const entry of kv.list<StoredEntry>({ prefix: duePrefix(SHARED_PARTITION) }, { batchSize: 500 })) {
    if (entry.value.destinationId !== destinationId) continue;
    atomic.delete(entry.key);
    deleteForward(atomic, entryAt(entry.key, entry.value));
    if (++count === DROP_BATCH) await commit();
  }
  if (count > 0) await commit();
}

/**
 * The partitions that hold entries, other than the shared one: one read of one key per partition (each read starts
 * past the keys of the one before), however many entries each holds.
 */
async function* pinnedPartitions(kv: Deno.Kv): AsyncGenerator<string> {
  const prefix = ["relay_due"];
  let start: Deno.KvKey | undefined;
  while (true) {
    let found: string | undefined;
    for await (const entry of kv.list(start ? { prefix, start } : { prefix }, { limit: 1 })) {
      found = entry.key[1] as string;
    }
    if (found === undefined) return;
    if (found !== SHARED_PARTITION) yield found;
    start = ["relay_due", `${found}\u0000`]; // past every key of `found` (a string's own keys end in its terminator)
  }
}

/**
 * A worker's housekeeping look at the pinned partitions: those of a destination that is gone (not in `cache`, nor
 * in KV) are deleted. Ids are never used again, so a destination found gone never gets entries of its own again
 * except from a write that still had it, which the next look deletes.
 */
export async function settlePartitions(kv: Deno.Kv, cache: { get(id: string): unknown }): Promise<void> {
  for await (const id of pinnedPartitions(kv)) {
    if (cache.get(id) === undefined && (await kv.get(destinationKey(id))).versionstamp === null) {
      await dropPartition(kv, id);
    }
  }
}
