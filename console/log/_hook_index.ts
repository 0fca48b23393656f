/**
 * The delivery log by hook, off the receiver's path. A postback's commit
 * writes its rows in the log alone; the hook index follows behind in packs:
 * once the log holds {@linkcode INDEX_BATCH} rows past the index's mark, one
 * pass writes, per hook, their summaries as JSON lines in a few entries
 * (keyed by the number of the last), with the mark, in one commit that rides
 * in the receiver's group commit. Readers take the packs up to the mark and
 * the log's rows above it (_log_scan.ts), so what was just stored is listed
 * at once.
 *
 * Measured (strace at 16 connections): a copy per delivery in an index
 * region of its own made a receiver commit write 55 WAL pages; with packs,
 * 44. The rows are read back from the log (13-20 µs each with KV's `list`):
 * the numbers of several processes interleave, so no process knows from its
 * memory alone that it has every row of a stretch.
 *
 * @module
 */

import { commitInGroup } from "../../webhooks/mod.ts";
import { deliveryViewKey, HOOK_INDEX_MARK_KEY, hookPackKey } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { Buffer } from "node:buffer";
import { type Line, lineOf, packExpiry, packsOf } from "./_hook_pack.ts";
import { utf8 } from "./_delivery_item.ts";
import { numberAt } from "./_numbers.ts";

/** Rows past the mark that start a pass (the readers' tail is about this long). */
export const INDEX_BATCH = 256;
/** Rows one pass reads at most. */
const PASS_ROWS = 1_000;
/** Packs one pass writes at most (with the mark, within KV's 1,000 mutations per atomic operation). */
const MAX_PASS_PACKS = 900;
/** Bytes of packs one pass commits at most (a group commit takes 800 KiB in all). */
const PASS_BYTES = 200_000;

/**
 * Keeps the hook index of one store up to date, a pass at a time, read from
 * the log: once this process has written {@linkcode INDEX_BATCH} rows since
 * its last pass, or when asked. A pass packs only rows numbered below the
 * settle window (the numbers of the last `settleMs`): a commit may still land
 * there, below numbers already seen (_live.ts), and the mark never passes a
 * row that is not packed.
 */
export class HookIndexer {
  #kv: Deno.Kv;
  #expireIn: number;
  #retain: number;
  #settleMs: number;
  /** Rows this process wrote since its last pass. */
  #written = 0;
  #running: Promise<void> | null = null;
  #again = false;

  constructor(kv: Deno.Kv, options: { expireIn: number; retain: number; settleMs: number }) {
    this.#kv = kv;
    this.#expireIn = options.expireIn;
    this.#retain = options.retain;
    this.#settleMs = options.settleMs;
  }

  /** `count` rows were written: starts a pass once a batch of them is there. */
  wrote(count: number): void {
    this.#written += count;
    if (this.#written >= INDEX_BATCH) this.#start(false).catch(() => {});
  }

  /**
   * Indexes every row of the log past the mark now, reading the log for
   * what this process does not have, or once the pass that is running
   * ends; rejects with what failed.
   */
  run(): Promise<void> {
    return this.#start(true);
  }

  #start(force: boolean): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return force ? this.idle().then(() => this.#start(true)) : this.idle();
    }
    const running = this.#index(force).finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.#start(false).catch(() => {});
      }
    });
    this.#running = running.catch(() => {});
    return running;
  }

  /** Waits for the passes that are running. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /**
   * One pass, and more only while a pass stops at its limits: under load a
   * pass takes what is there and ends, and the next waits for a batch.
   */
  async #index(force: boolean): Promise<void> {
    this.#written = 0;
    for (;;) {
      const mark = await retryLocked(() => this.#kv.get<number>(HOOK_INDEX_MARK_KEY));
      const from = (typeof mark.value === "number" ? mark.value : 0) + 1;
      const taken = await this.#read(from, numberAt(Date.now() - this.#settleMs));
      if (taken.lines.length === 0 || (!force && taken.lines.length < INDEX_BATCH)) return;
      // Rows the trimmer takes (or took) are not packed: of a pass past the retention, its newest `retain` only.
      const oldestKept = taken.lines[Math.max(0, taken.lines.length - this.#retain)];
      const { packs, last, cut } = packsOf(taken.lines, MAX_PASS_PACKS, oldestKept.seq - 1);
      const result = await commitInGroup(this.#kv, {
        checks: [mark],
        build: (atomic) => {
          for (const pack of packs) {
            const expireIn = packExpiry(this.#expireIn, pack.newest);
            atomic.set(hookPackKey(pack.hookId, pack.last), utf8(pack.lines.join("\n")), { expireIn });
          }
          atomic.set(HOOK_INDEX_MARK_KEY, last);
        },
      });
      if (result.kind === "error") throw result.error;
      if (result.kind === "committed" && !taken.full && !cut) return;
      // Failed: another process moved the mark; read it again.
    }
  }

  /** The log's rows from `from` on, below `settled`, as many as one pass takes (`full`: it stopped there). */
  async #read(from: number, settled: number): Promise<{ lines: Line[]; full: boolean }> {
    const lines: Line[] = [];
    let bytes = 0;
    if (from >= settled) return { lines, full: false };
    const selector = { start: deliveryViewKey(from), end: deliveryViewKey(settled) };
    for await (const entry of this.#kv.list(selector, { limit: PASS_ROWS })) {
      const line = lineOf(entry.value);
      lines.push(line);
      bytes += Buffer.byteLength(line.json);
      if (bytes >= PASS_BYTES) break;
    }
    return { lines, full: lines.length >= PASS_ROWS || bytes >= PASS_BYTES };
  }
}
