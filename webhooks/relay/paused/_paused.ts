// A disabled destination keeps its waiting entries: a worker that reaches
// one moves it, untried and uncounted, to ["relay_paused", destinationId,
// entryId] (a `park` finish, in _finish.ts). Enabling the destination moves
// them back to the outbox, due at once, in their order; removing it deletes
// them.

import { commitMending } from "../counters/mod.ts";
import { retryWhileLocked } from "../../kv/mod.ts";
import { isStoredEntry, type OutboxEntry, storedOf } from "../_entry.ts";
import { deleteForward, setForward } from "../_forwards.ts";
import { destinationKey, dueKey, OUTBOX_BUMP_KEY, PAUSED_PREFIX, pausedAfter, pausedPrefix } from "../_keys.ts";

/**
 * Entries moved back per commit: each is checked (two enables at once move it once), and so is the destination (a
 * removal or a disable meanwhile stops the move), within KV Connect's ten checks.
 */
const MOVE_BATCH = 9;
/** Entries deleted per commit: two deletes each, within a commit's 1,000 mutations. */
const DROP_BATCH = 400;

/** Whether a kept value is an entry as a `park` finish keeps it (type checks only): junk names nothing to send. */
function isKept(value: unknown): value is OutboxEntry {
  if (!isStoredEntry(value)) return false;
  const v = value as Partial<OutboxEntry>;
  return typeof v.id === "string" && typeof v.partition === "string" && typeof v.postbackId === "string" &&
    typeof v.index === "number";
}

/**
 * The ids of the destinations that have kept entries: one read of one key per such destination (each read starts
 * past the entries of the one before), however many entries each keeps and however many destinations keep none.
 */
export async function* pausedDestinations(kv: Deno.Kv): AsyncGenerator<string> {
  let start: Deno.KvKey | undefined;
  while (true) {
    let found: string | undefined;
    const selector = start ? { prefix: PAUSED_PREFIX, start } : { prefix: PAUSED_PREFIX };
    for await (const entry of kv.list(selector, { limit: 1 })) found = entry.key[1] as string;
    if (found === undefined) return;
    yield found;
    start = pausedAfter(found);
  }
}

/**
 * Moves the entries kept for `destinationId` back to the outbox, due now,
 * oldest first, while the destination is there and enabled; resolves with
 * how many it moved. Each entry is checked, so two calls at once (two
 * enables, or a worker's housekeeping beside an enable) move each entry once;
 * the destination is checked too, so none lands in a pinned destination's
 * partition after its removal emptied it (no worker would read it again).
 */
export async function unpark(kv: Deno.Kv, destinationId: string, now: () => number): Promise<number> {
  let moved = 0;
  while (true) {
    const destination = await kv.get<{ enabled: boolean }>(destinationKey(destinationId));
    if (!destination.value?.enabled) return moved; // removed or disabled again: the rest stay kept (or go with it)
    const batch: Deno.KvEntry<OutboxEntry>[] = [];
    for await (const entry of kv.list<OutboxEntry>({ prefix: pausedPrefix(destinationId) }, { limit: MOVE_BATCH })) {
      batch.push(entry);
    }
    if (batch.length === 0) return moved;
    const at = now();
    const atomic = kv.atomic().check(destination).sum(OUTBOX_BUMP_KEY, 1n); // the sum first: see commitMending
    for (const kept of batch) {
      const entry = kept.value;
      atomic.check(kept).delete(kept.key); // one edited into junk names nothing to send: deleted, not moved
      if (!isKept(entry)) continue;
      atomic.set(dueKey(entry.partition, at, entry.id), storedOf(entry));
      setForward(atomic, entry, "pending", at);
    }
    // Refused when another call moved one of them first, or the destination changed: the next look tells.
    if ((await commitMending(kv, atomic, [OUTBOX_BUMP_KEY])).ok) moved += batch.length;
  }
}

/** Deletes the entries kept for `destinationId` (it was removed), with their state for `forwards`. */
export async function dropPaused(kv: Deno.Kv, destinationId: string): Promise<void> {
  while (true) {
    const atomic = kv.atomic();
    let count = 0;
    for await (const kept of kv.list<OutboxEntry>({ prefix: pausedPrefix(destinationId) }, { limit: DROP_BATCH })) {
      atomic.delete(kept.key);
      if (isKept(kept.value)) deleteForward(atomic, kept.value); // junk names no state
      count++;
    }
    if (count === 0) return;
    await retryWhileLocked(() => atomic.commit());
  }
}

/**
 * A worker's housekeeping look at the kept entries: those of an enabled
 * destination (of `only`, when given) go back to the outbox, those of a
 * removed one are deleted. The enable or removal does this itself; the look
 * finishes it when the process that began it ended before it was done.
 */
export async function settlePaused(
  kv: Deno.Kv,
  cache: { get(id: string): { enabled: boolean } | undefined },
  only: Set<string> | null,
  now: () => number,
): Promise<void> {
  for await (const id of pausedDestinations(kv)) {
    const d = cache.get(id);
    if (d?.enabled && (!only || only.has(id))) await unpark(kv, id, now);
    else if (!d && (await kv.get(destinationKey(id))).versionstamp === null) await dropPaused(kv, id);
  }
}
