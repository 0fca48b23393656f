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

/** Adds to `atomic` the bump of the written shard of the slot that took number `seq`, by `rows`. */
export function countRows(atomic: Deno.AtomicOperation, seq: number, rows: number): void {
  const slot = Math.floor((seq % PER_MS) / PER_SLOT);
  atomic.sum(writtenKey(slot % WRITTEN_SHARDS), BigInt(rows));
}

/** Tells of this process's rows once committed (their count is in their commit). */
export class WrittenCount {
  #counted: (rows: number) => void;

  /**
   * @param _kv the log's KV (the count is written with the rows)
   * @param _slot this process's writer slot
   * @param counted called with the rows of each commit once it is known
   */
  constructor(_kv: Deno.Kv, _slot: () => number, counted: (rows: number) => void) {
    this.#counted = counted;
  }

  /** `rows` more were committed (and counted in their commit). */
  add(rows: number): void {
    if (rows > 0) this.#counted(rows);
  }

  /** Resolves at once: rows are counted in their own commit. */
  idle(): Promise<void> {
    return Promise.resolve();
  }
}
