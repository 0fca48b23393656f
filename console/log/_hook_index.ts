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
 * 44. Reading the rows back costs 13-20 µs each (KV's `list`), more than the
 * copy saved, so the summaries this process stored are packed from memory.
 *
 * @module
 */

import { commitInGroup } from "../../webhooks/mod.ts";
import { DELIVERY_VIEW_PREFIX, deliveryViewKey, HOOK_INDEX_MARK_KEY, hookPackKey } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { Buffer } from "node:buffer";
import { type Line, lineOf, packExpiry, packsOf } from "./_hook_pack.ts";
import { utf8 } from "./_delivery_item.ts";

/** Rows past the mark that start a pass (the readers' tail is about this long). */
export const INDEX_BATCH = 256;
/** Rows one pass reads at most. */
const PASS_ROWS = 1_000;
/** Packs one pass writes at most (with the mark, within KV's 1,000 mutations per atomic operation). */
const MAX_PASS_PACKS = 900;
/** Bytes of packs one pass commits at most (a group commit takes 800 KiB in all). */
const PASS_BYTES = 200_000;

/**
 * Past `max` entries, forgets the oldest of `map` down to three quarters of
 * `max`, in one walk: a `Map` finds its oldest key by walking past every
 * slot deleted since it last rehashed, so one key forgotten per call would
 * cost a walk of thousands of slots each time.
 */
function cap<K, V>(map: Map<K, V>, max: number): void {
  if (map.size <= max) return;
  let drop = map.size - Math.floor(max * 3 / 4);
  for (const key of map.keys()) {
    if (drop-- === 0) break;
    map.delete(key);
  }
}

/** Lines remembered at most, staged and confirmed each. */
const MAX_REMEMBERED = 20_000;

/**
 * Keeps the hook index of one store up to date, a pass at a time. The
 * summaries this process wrote are packed from memory: the receiver's are
 * staged as `write` adds them and confirmed once their postback is stored
 * (its report names its first number and postback id). Others (another
 * process's, those of a stopped console) are read from the log.
 */
export class HookIndexer {
  #kv: Deno.Kv;
  #expireIn: number;
  #retain: number;
  /** The mark as this process last read or wrote it (0 until then). */
  #mark = 0;
  /** The highest number this process knows written. */
  #known = 0;
  /** Every number from the mark up to this one is confirmed here. */
  #through = 0;
  #staged = new Map<number, { postbackId: string; line: Line }>();
  #confirmed = new Map<number, Line>();
  #running: Promise<void> | null = null;
  #again = false;

  constructor(kv: Deno.Kv, expireIn: number, retain: number) {
    this.#kv = kv;
    this.#expireIn = expireIn;
    this.#retain = retain;
  }

  /** A summary the receiver's `write` adds to a commit that may still fail (or be built again, numbered anew). */
  stage(postbackId: string, line: Line): void {
    this.#staged.set(line.seq, { postbackId, line });
    cap(this.#staged, MAX_REMEMBERED);
  }

  /**
   * The postback `postbackId` of `count` items, numbered from `first`, is
   * stored: its summaries staged at those numbers are known written (a
   * staging of it at other numbers, from a build whose commit failed, is not).
   */
  confirm(first: number, postbackId: string, count: number): void {
    for (let seq = first; seq < first + count; seq++) {
      const staged = this.#staged.get(seq);
      if (staged?.postbackId !== postbackId) return;
      this.#staged.delete(seq);
      this.#confirmed.set(seq, staged.line);
    }
    this.#advance();
  }

  /** Summaries known written. */
  written(lines: Line[]): void {
    for (const line of lines) this.#confirmed.set(line.seq, line);
    this.#advance();
  }

  /** Moves `#through` past the numbers confirmed in turn. */
  #advance(): void {
    cap(this.#confirmed, MAX_REMEMBERED);
    this.#through = Math.max(this.#through, this.#mark);
    while (this.#confirmed.has(this.#through + 1)) this.#through++;
  }

  /**
   * Called with the last number written: starts a pass once this process
   * has {@linkcode INDEX_BATCH} summaries in turn past the mark, or once the
   * log is two batches past it (numbers it does not have are read then).
   */
  wrote(last: number): void {
    if (last > this.#known) this.#known = last;
    if (this.#through - this.#mark >= INDEX_BATCH || this.#behind(this.#mark + 1)) this.#start(false).catch(() => {});
  }

  /** Whether the log is two batches past the mark at `from - 1`. */
  #behind(from: number): boolean {
    return this.#known - from >= 2 * INDEX_BATCH;
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
    for (;;) {
      const mark = await retryLocked(() => this.#kv.get<number>(HOOK_INDEX_MARK_KEY));
      const from = (typeof mark.value === "number" ? mark.value : 0) + 1;
      this.#forget(from - 1);
      // From memory while this process has every number in turn; else (a gap that stays, or asked to) from the log.
      let taken = this.#remembered(from);
      if (taken.lines.length === 0) {
        if (!force && !this.#behind(from)) return;
        taken = await this.#read(from);
        if (taken.lines.length === 0) return;
      } else if (!force && taken.lines.length < INDEX_BATCH && !this.#behind(from)) return;
      // Rows the trimmer takes (or took) are not packed.
      const keepAbove = taken.lines[taken.lines.length - 1].seq - this.#retain;
      const { packs, last, cut } = packsOf(taken.lines, MAX_PASS_PACKS, keepAbove);
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
      if (result.kind === "committed") {
        this.#forget(last);
        if (!taken.full && !cut) return;
      }
      // Failed: another process moved the mark; read it again.
    }
  }

  /** Forgets what is indexed up to `mark`. */
  #forget(mark: number): void {
    this.#mark = Math.max(this.#mark, mark);
    for (const map of [this.#staged, this.#confirmed]) {
      for (const seq of map.keys()) if (seq <= mark) map.delete(seq);
    }
    this.#advance();
  }

  /** The lines this process has from `from` on, in turn, as many as one pass takes (`full`: it stopped there). */
  #remembered(from: number): { lines: Line[]; full: boolean } {
    const lines: Line[] = [];
    let bytes = 0;
    for (let seq = from;; seq++) {
      if (lines.length >= PASS_ROWS || bytes >= PASS_BYTES) return { lines, full: true };
      const line = this.#confirmed.get(seq);
      if (!line) return { lines, full: false };
      lines.push(line);
      bytes += Buffer.byteLength(line.json);
    }
  }

  /** The log's rows from `from` on, as many as one pass takes (`full`: it stopped there). */
  async #read(from: number): Promise<{ lines: Line[]; full: boolean }> {
    const lines: Line[] = [];
    let bytes = 0;
    const selector = { prefix: DELIVERY_VIEW_PREFIX, start: deliveryViewKey(from) };
    for await (const entry of this.#kv.list(selector, { limit: PASS_ROWS })) {
      const line = lineOf(entry.value);
      lines.push(line);
      bytes += Buffer.byteLength(line.json);
      if (bytes >= PASS_BYTES) break;
    }
    return { lines, full: lines.length >= PASS_ROWS || bytes >= PASS_BYTES };
  }
}
