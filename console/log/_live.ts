/**
 * The live view's reader: what the log holds that a reader has not been
 * given yet, each delivery once. The log's numbers are taken before their
 * commit, by each process on its own clock (_numbers.ts), so a commit of
 * another process, or of another group in flight, may land below a number a
 * reader already saw; below a settle window (the numbers of the last
 * `settleMs`) the log is settled. It reads the log's rows themselves, of
 * every hook, and keeps one hook's in memory: the window is newer than the
 * hook index's mark, and a hook's listing reads a bounded number of other
 * hooks' rows there, which a busy log's window passes.
 *
 * A wake reads the rows past the highest number read, and the window again
 * only when a commit landed below it: the written shards (_written.ts) count
 * each row in its own commit, so a shard, read with its versionstamp, counts
 * exactly the rows whose versionstamps are not above it. When it counts more
 * rows than the reader saw (less those it will never see: numbered below the
 * window, or gone), one landed below; it is looked for near the rows read,
 * then in the whole window. A wake otherwise reads about what is new: under
 * load a window holds some 20,000 rows, and reading them at every commit
 * took 170-185 ms a wake on this project's 2-core machine, against about 1 ms now.
 *
 * @module
 */

import type { DeliveryView } from "./_view.ts";
import { rowOf } from "./_delivery_layout.ts";
import { DELIVERY_VIEW_PREFIX, deliveryViewKey, WRITTEN_KEYS, WRITTEN_SHARDS } from "./_keys.ts";
import { msOf, numberAt } from "./_numbers.ts";
import { shardOf } from "./_written.ts";

/** Rows one round trip of a read takes. */
const BATCH = 500;
/** How far below the rows read (ms of numbers) a wake first looks for a commit that landed late. */
const LATE_BAND_MS = 2_000;
/**
 * How far below the settle window (ms of numbers) a resume reads: a stream cut by a console's restart or a network's
 * blip comes back within seconds. One older (a tab asleep for a day, an id made up) would read every row since into
 * memory: it starts at the window, as a new stream does.
 */
const RESUME_MS = 30_000;

/** One written shard as the reader tallies it. */
interface Tally {
  /** Rows the shard counts that the reader will not see (below the window, or gone), as of its last full read. */
  base: bigint;
  /** Rows the reader saw that the shard counted when read. */
  seen: bigint;
  /** Versionstamps of rows the reader saw that the shard did not count yet when read. */
  pending: string[];
}

/** A reader of the log's new deliveries (of one hook, or all). */
export class LiveReader {
  #kv: Deno.Kv;
  #hookId: string | undefined;
  #settleMs: number;
  #now: () => number;
  /** Every delivery numbered up to here has been read (and given, past the start). */
  #floor = 0;
  /** The highest number read. */
  #cursor = 0;
  /** Numbers read above the floor, of every hook. */
  #read = new Set<number>();
  #tallies: Tally[] = Array.from({ length: WRITTEN_SHARDS }, () => ({ base: 0n, seen: 0n, pending: [] }));
  /** The written shards as this wake read them. */
  #counts: { value: bigint; stamp: string }[] = [];

  /**
   * A reader from the settle window on; call {@linkcode LiveReader.start} first.
   *
   * @param kv the log's KV
   * @param options `hookId` to give one hook's deliveries only, `settleMs`
   *   the settle window, `now` the clock (ms) when a test moves it
   */
  constructor(kv: Deno.Kv, options: { hookId?: string; settleMs: number; now?: () => number }) {
    this.#kv = kv;
    this.#hookId = options.hookId;
    this.#settleMs = options.settleMs;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Reads what the log holds now as given (the page the reader shows), from
   * the settle window on; with `after`, the number a stream cut short had
   * sent up to (its client's `Last-Event-ID`), what is numbered above it is
   * not given yet: returned, oldest first (read from there when it is below
   * the window, and no more than {@linkcode RESUME_MS} below it: else as
   * without it).
   */
  async start(after?: number): Promise<DeliveryView[]> {
    if (after !== undefined && msOf(after) < this.#now() - this.#settleMs - RESUME_MS) after = undefined;
    const from = Math.min(this.#settledBelow(), after ?? Infinity);
    this.#floor = this.#cursor = from;
    this.#read.clear();
    await this.#readCounts();
    const read = await this.#scan(from);
    this.#rebase();
    this.#settle();
    return after === undefined ? [] : read.filter((view) => view.seq > after).sort((a, b) => a.seq - b.seq);
  }

  /** The deliveries not given yet, oldest first. */
  async next(): Promise<DeliveryView[]> {
    const before = this.#cursor;
    await this.#readCounts();
    const out = await this.#scan(before);
    if (this.#missing()) {
      // A commit landed below the rows read: near them first, then anywhere in the window.
      out.push(...await this.#scan(Math.max(this.#floor, numberAt(msOf(before) - LATE_BAND_MS))));
      if (this.#missing()) {
        out.push(...await this.#scan(this.#floor));
        this.#rebase();
      }
    }
    this.#settle();
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Reads the written shards; rows seen before that they now count are tallied as counted. */
  async #readCounts(): Promise<void> {
    const entries = await this.#kv.getMany<unknown[]>(WRITTEN_KEYS);
    this.#counts = entries.map((entry) => ({
      value: entry.value instanceof Deno.KvU64 ? entry.value.value : 0n,
      stamp: entry.versionstamp ?? "",
    }));
    for (const [shard, tally] of this.#tallies.entries()) {
      if (tally.pending.length === 0) continue;
      const stamp = this.#counts[shard].stamp;
      const still = tally.pending.filter((versionstamp) => versionstamp > stamp);
      tally.seen += BigInt(tally.pending.length - still.length);
      tally.pending = still;
    }
  }

  /** Reads the log's rows numbered above `after` not read yet; returns those to give. */
  async #scan(after: number): Promise<DeliveryView[]> {
    const out: DeliveryView[] = [];
    const selector = { prefix: DELIVERY_VIEW_PREFIX, start: deliveryViewKey(after + 1) };
    for await (const entry of this.#kv.list(selector, { batchSize: BATCH })) {
      const seq = entry.key[1] as number;
      if (this.#read.has(seq)) continue;
      this.#read.add(seq);
      this.#cursor = Math.max(this.#cursor, seq);
      const shard = shardOf(seq);
      const tally = this.#tallies[shard];
      if (entry.versionstamp <= this.#counts[shard].stamp) tally.seen++;
      else tally.pending.push(entry.versionstamp);
      // A junk row (hand-edited, a bad write) is counted as seen and given to nobody.
      const view = rowOf(entry.value, seq)?.view;
      if (view && (this.#hookId === undefined || view.hookId === this.#hookId)) out.push(view);
    }
    return out;
  }

  /**
   * Whether a shard counts a row the reader has not seen and may still see,
   * or the reader saw a row no shard counts (written by an earlier version):
   * the window is read again and the tally set afresh, so that such a row
   * does not hide a missing one later.
   */
  #missing(): boolean {
    return this.#tallies.some((tally, shard) => this.#counts[shard].value - tally.base !== tally.seen);
  }

  /** After a read of the whole window: what the shards count and the reader did not see, it will not. */
  #rebase(): void {
    for (const [shard, tally] of this.#tallies.entries()) tally.base = this.#counts[shard].value - tally.seen;
  }

  /**
   * The highest number below the settle window: its first millisecond's
   * first number is writer slot 0's first there, so it is in the window (as
   * the hook index's passes, which pack only the rows below, take it).
   */
  #settledBelow(): number {
    return numberAt(this.#now() - this.#settleMs) - 1;
  }

  /** Settled: below the window, and read. Above it, what was read is remembered, to be left out next time. */
  #settle(): void {
    const floor = Math.max(this.#floor, Math.min(this.#settledBelow(), this.#cursor));
    if (floor <= this.#floor) return;
    this.#floor = floor;
    for (const seq of this.#read) if (seq <= floor) this.#read.delete(seq);
  }
}
