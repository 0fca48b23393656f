// A removed destination's waiting entries. A pinned one's partition
// (["relay_due", destinationId, ...]) is deleted by its removal, after the
// commit that removes it; a worker's housekeeping deletes what a removal
// killed before it was done left, and an entry written meanwhile by a process
// whose list of destinations still had it (it trusts that list for a second).
// An unpinned one's entries are found in the shared partition by their value;
// the removal's commit marks the destination removed (until a day after the
// removal is done, however long that takes), so that a
// worker's housekeeping finishes a removal killed midway, and a retry that
// would land behind the removal's listing of the outbox is refused.
// Its dead letters go with it (they could never be sent again): deleted by
// the removal after its entries, or by housekeeping when the removal was
// killed midway. None is written after the removal's commit (a death is
// refused by the mark, as a retry is), so a finished removal is not looked at
// again.

import { commitMending } from "../counters/mod.ts";
import { retryWhileLocked } from "../../kv/mod.ts";
import { deleteForward } from "../_forwards.ts";
import { entryAt, type StoredEntry } from "../_entry.ts";
import {
  deadByDestinationPrefix,
  deadByHookKey,
  deadKey,
  destinationKey,
  duePrefix,
  REMOVED_PREFIX,
  removedKey,
  SHARED_PARTITION,
  takeKey,
} from "../_keys.ts";
import type { DeadLetter } from "../_types.ts";

/**
 * How long a removed destination stays marked once its entries and dead letters are deleted: far past any lease of one
 * of its entries that a worker held. Until then the mark does not expire: a removal killed midway is finished by the
 * first housekeeping after it, however long no worker ran.
 */
const REMOVED_TTL_MS = 86_400_000;

/** The mark of a removed destination. */
interface RemovedMark {
  pinned: boolean;
  /** Its waiting entries are deleted. */
  dropped: boolean;
}

/** Marks destination `id` removed, in its removal's commit `atomic`; the mark expires only once the removal is done. */
export function markRemoved(atomic: Deno.AtomicOperation, id: string, pinned: boolean): void {
  atomic.set(removedKey(id), { pinned, dropped: false } satisfies RemovedMark);
}

/** Deletes the waiting entries and dead letters of removed destination `id`, then marks them deleted. */
export async function dropRemoved(kv: Deno.Kv, id: string, pinned: boolean): Promise<void> {
  await (pinned ? dropPartition(kv, id) : dropShared(kv, id));
  await dropDeadLetters(kv, id);
  const mark: RemovedMark = { pinned, dropped: true };
  await retryWhileLocked(() => kv.set(removedKey(id), mark, { expireIn: REMOVED_TTL_MS }));
}

/**
 * Whether destination `id` is removed: its mark there and its record gone (a removal deletes the record in the commit
 * that sets the mark). A mark beside a live record is junk (edited by hand, a bad write), and would drop the entries
 * of a destination still in use: it is deleted, checked against both (`"cleared"`), and the destination is `"live"`
 * as it is without a mark. Read where a mark refused a commit, and by housekeeping: never on a delivery's path.
 */
export async function removedState(kv: Deno.Kv, id: string): Promise<"removed" | "live" | "cleared"> {
  for (;;) {
    const [mark, record] = await retryWhileLocked(() => kv.getMany([removedKey(id), destinationKey(id)]));
    if (mark.versionstamp === null) return "live";
    if (record.versionstamp === null) return "removed";
    const cleared = await retryWhileLocked(() => kv.atomic().check(mark, record).delete(mark.key).commit());
    if (cleared.ok) return "cleared"; // else one of the two changed meanwhile (a removal, say): read them again
  }
}

/**
 * A worker's housekeeping look at the destinations removed (marked until a day after each removal is done): one whose
 * removal was killed before its entries and dead letters were deleted has them deleted now (however far away their
 * next attempt). One list of a few keys: a finished removal costs nothing more (no dead letter of it is written
 * after its commit).
 */
export async function settleRemoved(kv: Deno.Kv): Promise<void> {
  for await (const entry of kv.list<RemovedMark>({ prefix: REMOVED_PREFIX })) {
    if (entry.value?.dropped !== false) continue;
    // One removal that fails (the KV, or a record it cannot read) keeps its mark for the next look, and does not
    // hold back the others: its mark no longer expires while it is unfinished. A mark beside a live record is junk,
    // cleared here: its destination's entries are kept.
    const id = entry.key[1] as string;
    const pinned = entry.value.pinned === true;
    await removedState(kv, id).then((state) => state === "removed" ? dropRemoved(kv, id, pinned) : undefined)
      .catch(() => {});
  }
}

/** Dead letters deleted per commit: four deletes each (the letter, its two index entries, its `forwards` state). */
const DEAD_BATCH = 100;

/**
 * Deletes the dead letters of removed destination `id`, found by its index, with their hook index entries and their
 * `forwards` state, a hundred per commit. None can be sent again meanwhile: `redeliver` checks the destination.
 */
export async function dropDeadLetters(kv: Deno.Kv, id: string): Promise<void> {
  while (true) {
    const keys = await retryWhileLocked(async () => {
      const out: Deno.KvKey[] = [];
      for await (const entry of kv.list({ prefix: deadByDestinationPrefix(id) }, { limit: DEAD_BATCH })) {
        out.push(entry.key);
      }
      return out;
    });
    if (keys.length === 0) return;
    const atomic = kv.atomic();
    for (let i = 0; i < keys.length; i += 10) { // ten keys to a getMany, as KV Connect allows
      const chunk = keys.slice(i, i + 10);
      const found = await retryWhileLocked(() => kv.getMany(chunk.map((k) => deadKey(k.at(-1) as string))));
      for (const [j, letter] of found.entries()) {
        atomic.delete(chunk[j]);
        if (letter.versionstamp === null) continue;
        atomic.delete(letter.key);
        // A letter edited into junk names neither its hook index entry (pages skip it, its letter gone) nor its
        // state for `forwards` (which expires with its 30 days): deleted without them, not thrown at.
        const known = letterRef(letter.value);
        if (known === null) continue;
        atomic.delete(deadByHookKey(known.hookId, known.deadAt, known.id));
        deleteForward(atomic, known);
      }
    }
    await retryWhileLocked(() => atomic.commit());
  }
}

/** What deleting a dead letter's index entry and state needs of it, when `value` holds it. */
function letterRef(value: unknown): Pick<DeadLetter, "id" | "hookId" | "deadAt" | "postbackId" | "index"> | null {
  const v = value as Partial<DeadLetter> | null;
  return typeof v === "object" && v !== null && typeof v.id === "string" && typeof v.hookId === "string" &&
      typeof v.deadAt === "number" && typeof v.postbackId === "string" && typeof v.index === "number"
    ? v as DeadLetter
    : null;
}

/**
 * Deletes the state for `forwards` of outbox entry `entry` in `atomic`, when its value names it: one edited by hand
 * into junk (`null`, a string, a record without its fields) names none, and is deleted without it, not thrown at.
 */
function deleteEntryForward(atomic: Deno.AtomicOperation, entry: Deno.KvEntry<unknown>): void {
  const v = entry.value as Partial<StoredEntry> | null;
  if (typeof v !== "object" || v === null || typeof v.postbackId !== "string" || typeof v.index !== "number") return;
  deleteForward(atomic, entryAt(entry.key, v as StoredEntry));
}

/** Entries deleted per commit: two deletes each (the entry and its state for `forwards`), within 1,000 mutations. */
const DROP_BATCH = 400;

/** Deletes the waiting entries of a pinned destination's own partition, a few hundred per commit, then its take counter. */
export async function dropPartition(kv: Deno.Kv, partition: string): Promise<void> {
  while (true) {
    const atomic = kv.atomic();
    let count = 0;
    for await (const entry of kv.list({ prefix: duePrefix(partition) }, { limit: DROP_BATCH })) {
      atomic.delete(entry.key);
      deleteEntryForward(atomic, entry);
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
 * (or, delivered meanwhile, as delivered); a retry of one is refused by the destination's removed mark. Those left
 * by a removal killed midway are dropped by {@linkcode settleRemoved}.
 */
export async function dropShared(kv: Deno.Kv, destinationId: string): Promise<void> {
  const take = takeKey(SHARED_PARTITION);
  let atomic = kv.atomic().sum(take, 1n); // the sum first: see commitMending
  let count = 0;
  const commit = async () => {
    await commitMending(kv, atomic, [take]);
    atomic = kv.atomic().sum(take, 1n);
    count = 0;
  };
  for await (const entry of kv.list({ prefix: duePrefix(SHARED_PARTITION) }, { batchSize: 500 })) {
    // A damaged one (edited by hand into junk) names no destination: it is no one's to delete.
    if ((entry.value as Partial<StoredEntry> | null)?.destinationId !== destinationId) continue;
    atomic.delete(entry.key);
    deleteEntryForward(atomic, entry);
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
