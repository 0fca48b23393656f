/**
 * The log's written count: the shard of the writing process's slot
 * (`slot % 8`) is bumped by the number of rows with `sum`, which needs no
 * check, in the rows' own commit ({@linkcode countRows}): the group commit
 * lets jobs that sum one key share a group, and on a remote KV lets groups
 * that only sum it go at once, so no key is checked by every commit and the
 * count is exact (a row is counted if and only if it was committed). The
 * live view wakes on these keys, and trimming counts the log's rows by them.
 * {@linkcode WrittenCount} tells this process's trimmer and hook index of
 * rows once their commit is known.
 *
 * @module
 */

import { PER_MS, PER_SLOT } from "./_numbers.ts";
import { WRITTEN_SHARDS, writtenKey } from "./_keys.ts";

/** The written shard that counts the row numbered `seq` (that of the slot that took it). */
export function shardOf(seq: number): number {
  return Math.floor((seq % PER_MS) / PER_SLOT) % WRITTEN_SHARDS;
}

/** Adds to `atomic` the bump of the written shard of the slot that took number `seq`, by `rows`. */
export function countRows(atomic: Deno.AtomicOperation, seq: number, rows: number): void {
  atomic.sum(writtenKey(shardOf(seq)), BigInt(rows));
}

/** A count's value as read (a `Deno.KvU64`; absent or junk: 0). */
export function countOf(value: unknown): bigint {
  return value instanceof Deno.KvU64 ? value.value : 0n;
}

/** Whether a count's entry holds junk (hand-edited): neither a `Deno.KvU64` nor absent. */
export function junkCount(value: unknown): boolean {
  return value !== null && !(value instanceof Deno.KvU64);
}
