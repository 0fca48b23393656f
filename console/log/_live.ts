/**
 * The live view's reader: what the log holds that a reader has not been
 * given yet, each delivery once. The log's numbers are taken before their
 * commit, by each process on its own clock (_numbers.ts), so a commit of
 * another process, or of another group in flight, may land below a number a
 * reader already saw. A reader therefore reads again a settle window (the
 * numbers of the last `settleMs`) and leaves out what it gave before, by id;
 * below the window the log is settled and read once. It reads the log's
 * rows themselves, of every hook, and keeps one hook's in memory: the window
 * is newer than the hook index's mark, and a hook's listing reads a bounded
 * number of other hooks' rows there, which a busy log's window passes.
 *
 * @module
 */

import type { DeliveryView } from "./_view.ts";
import { rowOf } from "./_delivery_layout.ts";
import { DELIVERY_VIEW_PREFIX, deliveryViewKey } from "./_keys.ts";
import { numberAt } from "./_numbers.ts";

/** Rows one round trip of a read takes. */
const BATCH = 500;

/** A reader of the log's new deliveries (of one hook, or all). */
export class LiveReader {
  #kv: Deno.Kv;
  #hookId: string | undefined;
  #settleMs: number;
  /** Every delivery numbered up to here has been read (and given, past the start). */
  #floor = 0;
  /** Ids given above the floor, by number. */
  #given = new Map<string, number>();
  #now: () => number;

  constructor(kv: Deno.Kv, options: { hookId?: string; settleMs: number; now?: () => number }) {
    this.#kv = kv;
    this.#hookId = options.hookId;
    this.#settleMs = options.settleMs;
    this.#now = options.now ?? Date.now;
  }

  /** Reads what the log holds now as given (the page the reader shows), from the settle window on. */
  async start(): Promise<void> {
    this.#floor = numberAt(this.#now() - this.#settleMs);
    await this.next();
  }

  /** The deliveries not given yet, oldest first. */
  async next(): Promise<DeliveryView[]> {
    const settled = numberAt(this.#now() - this.#settleMs);
    const out: DeliveryView[] = [];
    let highest = this.#floor;
    const selector = { prefix: DELIVERY_VIEW_PREFIX, start: deliveryViewKey(this.#floor + 1) };
    for await (const entry of this.#kv.list(selector, { batchSize: BATCH })) {
      const { view } = rowOf(entry.value);
      highest = Math.max(highest, view.seq);
      if (this.#hookId !== undefined && view.hookId !== this.#hookId) continue;
      if (!this.#given.has(view.id)) {
        this.#given.set(view.id, view.seq);
        out.push(view);
      }
    }
    // Settled: below the window, and read. Above it, what was given is remembered to be left out next time.
    const floor = Math.max(this.#floor, Math.min(settled, highest));
    if (floor > this.#floor) {
      this.#floor = floor;
      for (const [id, seq] of this.#given) if (seq <= floor) this.#given.delete(id);
    }
    return out;
  }
}
