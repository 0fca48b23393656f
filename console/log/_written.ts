/**
 * The log's written count: after rows are committed, the shard of this
 * process's slot (`slot % 8`) is bumped by their number with `sum`, which
 * needs no check, in a job of Module A's group commit of its own (two jobs
 * that write one key cannot share a group, so the bump is not in the rows'
 * commit). One bump is in flight per process at a time; the rows written
 * meanwhile are counted by the next, which rides in the next group. The live
 * view wakes on these keys, and trimming counts the log's rows by them.
 *
 * @module
 */

import { commitInGroup } from "../../webhooks/mod.ts";
import { WRITTEN_SHARDS, writtenKey } from "./_keys.ts";

/** Counts one process's rows in its written shard. */
export class WrittenCount {
  #kv: Deno.Kv;
  #shard: () => number;
  #counted: (rows: number) => void;
  #uncounted = 0;
  #counting: Promise<void> | null = null;

  /**
   * @param kv the log's KV
   * @param slot this process's writer slot (its shard is `slot % 8`)
   * @param counted called with the rows of each bump once it committed
   */
  constructor(kv: Deno.Kv, slot: () => number, counted: (rows: number) => void) {
    this.#kv = kv;
    this.#shard = () => Math.max(0, slot()) % WRITTEN_SHARDS;
    this.#counted = counted;
  }

  /** `rows` more were committed: counted by the bump in flight's successor, or now. */
  add(rows: number): void {
    this.#uncounted += rows;
    if (this.#counting || this.#uncounted === 0) return;
    const n = this.#uncounted;
    this.#uncounted = 0;
    const shard = this.#shard();
    this.#counting = commitInGroup(this.#kv, {
      checks: [],
      build: (atomic) => atomic.sum(writtenKey(shard), BigInt(n)),
    }).then((result) => {
      if (result.kind !== "committed") throw result.kind === "error" ? result.error : new Error("not counted");
      this.#counting = null;
      this.#counted(n);
      if (this.#uncounted > 0) this.add(0);
    }).catch(() => {
      // Not counted: the next write's bump counts these rows too (no retry loop on a KV that fails or closed).
      this.#uncounted += n;
      this.#counting = null;
    });
  }

  /** Resolves once the rows added so far are counted (or their bump failed). */
  async idle(): Promise<void> {
    while (this.#counting) await this.#counting;
  }
}
