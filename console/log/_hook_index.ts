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
 * 44. Reading the rows back costs 13-20 µs each (KV's `list`), so a pass
 * packs from memory the rows this process stored when they can be all the
 * log holds there: the numbers of several processes interleave, and only
 * the writer slots' leases tell that no other process numbered in that
 * stretch (_numbers.ts, `alone`). Else, and while a row this process wrote
 * is not known stored or not (a commit that failed, or may have), it reads
 * the log.
 *
 * @module
 */

import { commitInGroup } from "../../webhooks/mod.ts";
import { DELIVERY_VIEW_PREFIX, deliveryViewKey, HOOK_INDEX_MARK_KEY, hookPackKey } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { Buffer } from "node:buffer";
import { type Line, lineOf, packsOf, setPack } from "./_hook_pack.ts";
import { type Allocator, FAR_AHEAD_MS, msOf, numberAt } from "./_numbers.ts";
import { repairPack } from "./_hook_repair.ts";

/**
 * The number the hook index has packed up to, from its mark's entry (0: none yet, or a mark no process can have
 * reached, a day past the clock: edited by hand, it hid the rows below it, and the index packs again from the oldest).
 */
export function markOf(mark: Deno.KvEntryMaybe<unknown>): number {
  const { value } = mark;
  return Number.isSafeInteger(value) && (value as number) <= numberAt(Date.now() + FAR_AHEAD_MS) ? value as number : 0;
}

/** Rows past the mark that start a pass (the readers' tail is about this long). */
export const INDEX_BATCH = 256;
/** Rows one pass reads at most. */
const PASS_ROWS = 1_000;
/** Packs one pass writes at most (with the mark, within KV's 1,000 mutations per atomic operation). */
const MAX_PASS_PACKS = 900;
/** Bytes of packs one pass commits at most (a group commit takes 800 KiB in all). */
const PASS_BYTES = 200_000;
/** Rows remembered at most, stored and staged each (a settle window's worth under load is about 20,000). */
const MAX_REMEMBERED = 50_000;

/**
 * Keeps the hook index of one store up to date, a pass at a time, from this
 * process's memory or the log (see above): once this process has written {@linkcode INDEX_BATCH} rows since
 * its last pass, or when asked. A pass packs only rows numbered below the
 * settle window (the numbers of the last `settleMs`): a commit may still land
 * there, below numbers already seen (_live.ts), and the mark never passes a
 * row that is not packed.
 */
export class HookIndexer {
  #kv: Deno.Kv;
  #expireIn: number;
  #settleMs: number;
  #numbers: Allocator;
  /** Rows this process wrote since its last pass. */
  #written = 0;
  #running: Promise<void> | null = null;
  #again = false;
  /**
   * The summaries this process stored that no pass packed yet, by number: a
   * pass takes a stretch of them and, committed, drops those below its mark,
   * each by a binary search (they come in about that order; filtering a
   * settle window's worth, 20,000 under load, at every pass of 256 rows was
   * 2% of the receiver's main thread).
   */
  #mine: Line[] = [];
  /** The receiver's rows in commits not yet known to be stored, by number. */
  #staged = new Map<number, { postbackId: string; line: Line }>();
  /** Passes read the log while they start at or below this number (a row of this process may be there unknown). */
  #readThrough = 0;
  /**
   * Rows of this process known stored later than the settle window after
   * their number: a pass may have passed them unseen (_hook_repair.ts).
   */
  #late: Line[] = [];

  constructor(kv: Deno.Kv, numbers: Allocator, options: { expireIn: number; settleMs: number }) {
    this.#kv = kv;
    this.#numbers = numbers;
    this.#expireIn = options.expireIn;
    this.#settleMs = options.settleMs;
  }

  /** A summary the receiver's `write` adds to a commit that may still fail (or be built again, numbered anew). */
  stage(postbackId: string, line: Line): void {
    if (this.#staged.size >= MAX_REMEMBERED) this.#unsure(this.#staged);
    this.#staged.set(line.seq, { postbackId, line });
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
      this.#remember(staged.line);
    }
  }

  /** Summaries known stored (by `addPostback` and refused requests). */
  stored(lines: Line[]): void {
    for (const line of lines) this.#remember(line);
  }

  /** A write of this process may have stored rows numbered up to `last` unknown to it: passes read those. */
  unsure(last: number): void {
    this.#readThrough = Math.max(this.#readThrough, last);
  }

  #remember(line: Line): void {
    if (Date.now() - msOf(line.seq) > this.#settleMs / 2 && this.#late.length < MAX_REMEMBERED) this.#late.push(line);
    const mine = this.#mine;
    if (mine.length >= MAX_REMEMBERED) {
      // Forgotten, the lowest: the log is read where they were.
      const dropped = mine.splice(0, MAX_REMEMBERED / 4);
      this.unsure(dropped[dropped.length - 1].seq);
    }
    // Kept in order of number: most come after the last, a few a little before it.
    let at = mine.length;
    while (at > 0 && mine[at - 1].seq > line.seq) at--;
    if (at === mine.length) mine.push(line);
    else mine.splice(at, 0, line);
  }

  /** The index in `#mine` of its first line numbered `seq` or more. */
  #mineFrom(seq: number): number {
    const mine = this.#mine;
    let lo = 0, hi = mine.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (mine[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Forgets staged rows (whether stored or not is then read from the log). */
  #unsure(rows: Map<number, unknown>, below = Infinity): void {
    for (const seq of rows.keys()) {
      if (seq < below) this.unsure(seq), rows.delete(seq);
    }
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
   * Waits for the passes that are running, then puts in their hooks' packs
   * the late rows the mark has passed: they are known to this process only,
   * which may write no batch again before it stops (a store that flushes).
   */
  async finish(): Promise<void> {
    await this.idle();
    if (this.#late.length === 0) return;
    await this.#repair(markOf(await this.#readMark()));
  }

  /**
   * One pass, and more only while a pass stops at its limits: under load a
   * pass takes what is there and ends, and the next waits for a batch.
   */
  async #index(force: boolean): Promise<void> {
    this.#written = 0;
    for (;;) {
      const mark = await this.#readMark();
      const from = markOf(mark) + 1;
      if (this.#late.length > 0) await this.#repair(from - 1);
      const settled = numberAt(Date.now() - this.#settleMs);
      const taken = await this.#take(from, settled);
      if (taken.lines.length === 0 || (!force && taken.lines.length < INDEX_BATCH)) return;
      // Rows the trimmer took are not packed (readers skip them); those it has yet to take are: it keeps up
      // to its slack past the retention, and a row the log holds is listed by its hook.
      const { packs, last, cut } = packsOf(taken.lines, MAX_PASS_PACKS, (await this.#oldestRow()) - 1);
      const result = await commitInGroup(this.#kv, {
        checks: [mark],
        build: (atomic) => {
          for (const pack of packs) {
            setPack(atomic, hookPackKey(pack.hookId, pack.last), pack.lines, this.#expireIn, pack.newest);
          }
          atomic.set(HOOK_INDEX_MARK_KEY, last);
        },
      });
      if (result.kind === "error") throw result.error;
      if (result.kind === "committed") this.#mine.splice(0, this.#mineFrom(last + 1));
      if (result.kind === "committed" && !taken.full && !cut) return;
      // Failed: another process moved the mark; read it again.
    }
  }

  /** The hook index's mark as stored (its versionstamp checked by a pass's commit). */
  #readMark(): Promise<Deno.KvEntryMaybe<number>> {
    return retryLocked(() => this.#kv.get<number>(HOOK_INDEX_MARK_KEY));
  }

  /** Puts in their hooks' packs the late rows the mark passed (those above it, a pass takes). */
  async #repair(mark: number): Promise<void> {
    const passed = this.#late.filter((line) => line.seq <= mark);
    if (passed.length === 0) return;
    this.#late = this.#late.filter((line) => line.seq > mark);
    // One that fails (a pack KV will not take grown by a line) stays out of its hook's listing, as before.
    for (const line of passed) await repairPack(this.#kv, line, this.#expireIn).catch(() => {});
  }

  /** The number of the log's oldest row (none: past every number). */
  async #oldestRow(): Promise<number> {
    const rows = this.#kv.list({ prefix: DELIVERY_VIEW_PREFIX }, { limit: 1 });
    for await (const entry of rows) return entry.key[1] as number;
    return Number.MAX_SAFE_INTEGER;
  }

  /**
   * The rows from `from` on, below `settled`: from memory where they can
   * only be this process's and each of its rows there is known stored or
   * not, else (below that) from the log.
   */
  async #take(from: number, settled: number): Promise<{ lines: Line[]; full: boolean }> {
    // Staged rows below the window whose commits were never confirmed: stored or not, the log tells.
    this.#unsure(this.#staged, settled);
    if (from >= settled) return { lines: [], full: false };
    const own = Math.max(await this.#numbers.ownFrom(), this.#readThrough + 1);
    const read = await this.#read(from, Math.min(own, settled));
    if (read.full || own >= settled) return read;
    const start = Math.max(from, own);
    const lines = [...read.lines, ...this.#mine.slice(this.#mineFrom(start), this.#mineFrom(settled))];
    let bytes = 0;
    for (const [i, line] of lines.entries()) {
      bytes += Buffer.byteLength(line.json);
      if (i + 1 >= PASS_ROWS || bytes >= PASS_BYTES) return { lines: lines.slice(0, i + 1), full: true };
    }
    return { lines, full: false };
  }

  /** The log's rows from `from` on, below `settled`, as many as one pass takes (`full`: it stopped there). */
  async #read(from: number, settled: number): Promise<{ lines: Line[]; full: boolean }> {
    const lines: Line[] = [];
    let bytes = 0;
    if (from >= settled) return { lines, full: false };
    const selector = { start: deliveryViewKey(from), end: deliveryViewKey(settled) };
    let rows = 0;
    for await (const entry of this.#kv.list(selector, { limit: PASS_ROWS })) {
      rows++;
      const line = lineOf(entry.value, entry.key[1] as number);
      if (line === null) continue; // junk: no hook lists it
      lines.push(line);
      bytes += Buffer.byteLength(line.json);
      if (bytes >= PASS_BYTES) break;
    }
    return { lines, full: rows >= PASS_ROWS || bytes >= PASS_BYTES };
  }
}
