// Every KV key of the relay is built here, as a tuple, never by string
// concatenation; and the ids they hold (ULIDs, at the end of this file).
//
// Layout:
// - ["relay_destination", id]                 a destination, its secret included
// - ["relay_destination_url", sha256(url)]    the ids of the unpinned destinations at one URL, rewritten (and checked)
//                                             by every add, URL or hooks change and removal of one of them: two
//                                             destinations never forward one hook's postbacks to one URL
// - ["relay_destinations_version"]            a counter bumped (sum) by every change of a destination
// - ["relay_outbox_bump"]                     a counter bumped (sum) when entries are added; workers watch it
// - ["relay_due", partition, dueAt, entryId]  an outbox entry, at the time it is next due; a held entry sits at the
//                                             end of its lease, so it is due again when a crashed worker's lease ends
// - ["relay_take", partition]                a counter bumped (sum) and checked by every take of the partition's
//                                             entries: takes of one partition commit one at a time
// - ["relay_fanout", id]                      a postback item written while this process's destination list was not
//                                             known fresh; a worker turns it into entries (one commit, or several)
// - ["relay_fanout_after", id]                the last destination id a fan-out record too big for one commit was
//                                             turned into entries for (the rest follow in later commits)
// - ["relay_attempt", entryId, attemptId]     one attempt of an entry
// - ["relay_dead", entryId]                   a dead letter; ["relay_dead_by_destination", destinationId, entryId] a copy
// - ["relay_dead_by_hook", hookId, deadAt, entryId]
//                                             a dead letter found by its hook, in order of death (its destination's id);
//                                             ["relay_dead_by_hook_ready"] once the dead letters of earlier versions
//                                             have theirs
// - ["relay_paused", destinationId, entryId]  an entry of a disabled destination, kept untried (the whole entry); moved
//                                             back to the outbox, due at once, when the destination is enabled again
// - ["relay_pin_held", destinationId]         when a worker last held a pinned destination (ms)
// - ["relay_removed", destinationId]          a removed destination: set by its removal's commit, checked
//                                             absent by a retry's commit; `dropped` once its entries are deleted,
//                                             and then expiring in a day
// - ["relay_entry_by_postback", postbackId, index, entryId]
//                                             an entry's state (or a fan-out record's), written in the commits that
//                                             add, finish or redeliver it, for `forwards`; expires with its attempts

import { monotonicFactory } from "ulid";

/** The partition of entries that any worker may deliver; a pinned destination's entries use its id. */
export const SHARED_PARTITION = "*";

/** A destination record. */
export function destinationKey(id: string): Deno.KvKey {
  return ["relay_destination", id];
}

/** Prefix of every destination record. */
export const DESTINATION_PREFIX: Deno.KvKey = ["relay_destination"];

/** The ids of the unpinned destinations at the URL whose SHA-256 (hex) is `urlHash`. */
export function destinationUrlKey(urlHash: string): Deno.KvKey {
  return ["relay_destination_url", urlHash];
}

/** Bumped (sum) by every change of a destination: caches compare its versionstamp. */
export const DESTINATIONS_VERSION_KEY: Deno.KvKey = ["relay_destinations_version"];

/** Bumped (sum) when outbox entries are added: workers watch it. */
export const OUTBOX_BUMP_KEY: Deno.KvKey = ["relay_outbox_bump"];

/** An outbox entry of `partition`, due at `dueAt` (ms). */
export function dueKey(partition: string, dueAt: number, entryId: string): Deno.KvKey {
  return ["relay_due", partition, dueAt, entryId];
}

/** Prefix of the outbox entries of one partition, in order of due time. */
export function duePrefix(partition: string): Deno.KvKey {
  return ["relay_due", partition];
}

/** Every partition's outbox entries. */
export const DUE_PREFIX: Deno.KvKey = ["relay_due"];

/** The take counter of `partition`. */
export function takeKey(partition: string): Deno.KvKey {
  return ["relay_take", partition];
}

/** A postback item waiting to be turned into entries. */
export function fanoutKey(id: string): Deno.KvKey {
  return ["relay_fanout", id];
}

/** Prefix of the items waiting to be turned into entries. */
export const FANOUT_PREFIX: Deno.KvKey = ["relay_fanout"];

/** How far a fan-out record turned into entries over several commits has come: the last destination id done. */
export function fanoutAfterKey(id: string): Deno.KvKey {
  return ["relay_fanout_after", id];
}

/** One attempt of an entry. */
export function attemptKey(entryId: string, attemptId: string): Deno.KvKey {
  return ["relay_attempt", entryId, attemptId];
}

/** Prefix of the attempts of one entry, oldest first. */
export function attemptPrefix(entryId: string): Deno.KvKey {
  return ["relay_attempt", entryId];
}

/** A dead letter. */
export function deadKey(entryId: string): Deno.KvKey {
  return ["relay_dead", entryId];
}

/** Prefix of every dead letter. */
export const DEAD_PREFIX: Deno.KvKey = ["relay_dead"];

/** A copy of a dead letter, under its destination. */
export function deadByDestinationKey(destinationId: string, entryId: string): Deno.KvKey {
  return ["relay_dead_by_destination", destinationId, entryId];
}

/** Prefix of the dead letters of one destination. */
export function deadByDestinationPrefix(destinationId: string): Deno.KvKey {
  return ["relay_dead_by_destination", destinationId];
}

/** A dead letter of `hookId`, found by the hook in order of death. */
export function deadByHookKey(hookId: string, deadAt: number, entryId: string): Deno.KvKey {
  return ["relay_dead_by_hook", hookId, deadAt, entryId];
}

/** Prefix of the dead letters of one hook, oldest death first. */
export function deadByHookPrefix(hookId: string): Deno.KvKey {
  return ["relay_dead_by_hook", hookId];
}

/** Set once every dead letter stored by an earlier version (which kept no hook index) has its hook index entry. */
export const DEAD_BY_HOOK_READY_KEY: Deno.KvKey = ["relay_dead_by_hook_ready"];

/** An entry kept while its destination is disabled. */
export function pausedKey(destinationId: string, entryId: string): Deno.KvKey {
  return ["relay_paused", destinationId, entryId];
}

/** Prefix of the entries kept for one disabled destination, in the order they were made. */
export function pausedPrefix(destinationId: string): Deno.KvKey {
  return ["relay_paused", destinationId];
}

/** Where the kept entries of the destinations after `destinationId` start (past all of its own). */
export function pausedAfter(destinationId: string): Deno.KvKey {
  return ["relay_paused", `${destinationId}\u0000`];
}

/** Prefix of every kept entry. */
export const PAUSED_PREFIX: Deno.KvKey = ["relay_paused"];

/** When a worker last held a pinned destination. */
export function pinHeldKey(destinationId: string): Deno.KvKey {
  return ["relay_pin_held", destinationId];
}

/** Marks a destination removed (for a day): a retry of one of its entries is refused, housekeeping ends its removal. */
export function removedKey(destinationId: string): Deno.KvKey {
  return ["relay_removed", destinationId];
}

/** Prefix of the marks of removed destinations. */
export const REMOVED_PREFIX: Deno.KvKey = ["relay_removed"];

/** The state of an entry (or of a fan-out record) of a postback item, found by the postback. */
export function forwardKey(postbackId: string, index: number, entryId: string): Deno.KvKey {
  return ["relay_entry_by_postback", postbackId, index, entryId];
}

/** Prefix of the entries of a postback, or of one of its items. */
export function forwardPrefix(postbackId: string, index?: number): Deno.KvKey {
  return index === undefined ? ["relay_entry_by_postback", postbackId] : ["relay_entry_by_postback", postbackId, index];
}

// The relay's ids: monotonic ULIDs whose random part comes from a pool of
// `crypto.getRandomValues` bytes. The `ulid` package's own source asks
// `getRandomValues` for one byte per character, sixteen calls (about 20 µs)
// for each id made in a new millisecond: under steady traffic, that is most
// of what `write` does per item.

const POOL = 4_096;
const pool = new Uint8Array(POOL);
let taken = POOL;

/** A byte of the pool as `ulid` takes it, in [0, 1); the pool is refilled once used up. */
function random(): number {
  if (taken === POOL) {
    crypto.getRandomValues(pool);
    taken = 0;
  }
  return pool[taken++] / 256;
}

/** A new ULID: in order of creation within this process, its random part from the operating system's source. */
export const ulid: () => string = monotonicFactory(random);
