/**
 * Reading the delivery log in order, all of it or one hook's, between two
 * numbers. One hook's summaries come from its packs up to the hook index's
 * mark (_hook_index.ts) and from the log's own rows above it, so the newest
 * are there as soon as they are stored. A scan reads at most `limit`
 * entries (the log's rows of other hooks it passes count too), and tells
 * how many it read and where it stopped, for the readers' cursors.
 *
 * @module
 */

import type { DeliveryView } from "./_view.ts";
import { rowOf } from "./_delivery_layout.ts";
import { packViews } from "./_hook_pack.ts";
import { INDEX_BATCH, markOf } from "./_hook_index.ts";
import { DELIVERY_VIEW_PREFIX, deliveryViewKey, HOOK_INDEX_MARK_KEY, hookPackPrefix } from "./_keys.ts";

/** Rows of other hooks one hook's list ({@linkcode listLog}) reads at most above the hook index's mark. */
export const MAX_HOOK_TAIL = 8 * INDEX_BATCH;

/**
 * Junk rows (hand-edited, a bad write) the whole log's list passes over at
 * most besides `limit`: without them a junk row at the top made
 * `list({ limit: 1 })`, the live stream's `ready`, come back empty.
 */
const MAX_JUNK_PASSED = 64;

/**
 * Summaries, newest first (oldest first with `forward`), of one hook or all,
 * after a number, at most `limit` (default 50); one hook's reads at most
 * {@linkcode MAX_HOOK_TAIL} rows of other hooks besides.
 */
export async function listLog(
  kv: Deno.Kv,
  options: { hookId?: string; after?: number; limit?: number; forward?: boolean },
): Promise<DeliveryView[]> {
  const limit = options.limit ?? 50;
  const out: DeliveryView[] = [];
  if (limit < 1) return out;
  const { hookId, after, forward } = options;
  // The whole log's list reads `limit` rows a round trip: a batch more only where it passed junk.
  const scan = new LogScan(kv, {
    hookId,
    after,
    reverse: !forward,
    limit: limit + (hookId ? MAX_HOOK_TAIL : MAX_JUNK_PASSED),
    batchSize: hookId ? undefined : Math.min(Math.ceil(limit), 500),
  });
  for await (const { view } of scan) {
    out.push(view);
    if (out.length >= limit) break;
  }
  return out;
}

/** The number of the log's oldest row (none: past every number, so no pack is read). */
async function oldestRow(kv: Deno.Kv): Promise<number> {
  for await (const entry of kv.list({ prefix: DELIVERY_VIEW_PREFIX }, { limit: 1 })) return entry.key[1] as number;
  return Number.MAX_SAFE_INTEGER;
}

/** What to read. */
export interface ScanOptions {
  /** Only this webhook record's. */
  hookId?: string;
  /** Only numbers above this one. */
  after?: number;
  /** Only numbers below this one. */
  before?: number;
  /** Newest first. */
  reverse: boolean;
  /** Entries to read at most. */
  limit: number;
  /** Entries to read a round trip (KV's own choice when not given). */
  batchSize?: number;
}

/** One summary as read, with the payload its row keeps (`null`: none there). */
export interface ScannedRow {
  view: DeliveryView;
  payload: string | null;
}

/** A scan of the log: iterate it once; `read` and `position` say how far it went. */
export class LogScan implements AsyncIterable<ScannedRow> {
  #kv: Deno.Kv;
  #options: ScanOptions;
  /** Entries read so far. */
  read = 0;
  /** The number of the last entry read. */
  position: number | undefined;

  constructor(kv: Deno.Kv, options: ScanOptions) {
    this.#kv = kv;
    this.#options = options;
  }

  /** Whether the scan stopped at its limit (there may be more). */
  get capped(): boolean {
    return this.read >= this.#options.limit;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ScannedRow> {
    const { hookId, after, before, reverse } = this.#options;
    if (!hookId) return yield* this.#rows(after, before, reverse, null);
    // The mark, and the log's oldest row: a pack may still hold summaries trimmed from the log since.
    const [indexed, oldest] = await Promise.all([
      this.#kv.get(HOOK_INDEX_MARK_KEY).then(markOf),
      oldestRow(this.#kv),
    ]);
    const from = Math.max(after ?? 0, oldest - 1);
    // Packed: (after, min(mark + 1, before)); in the log: (max(mark, after), before).
    const packedBefore = Math.min(indexed + 1, before ?? Infinity);
    const tailAfter = Math.max(indexed, after ?? 0);
    if (reverse) {
      yield* this.#rows(tailAfter, before, true, hookId);
      if (!this.capped) yield* this.#packed(hookId, from, packedBefore, true);
    } else {
      yield* this.#packed(hookId, from, packedBefore, false);
      if (!this.capped) yield* this.#rows(tailAfter, before, false, hookId);
    }
  }

  /** The log's rows numbered between `after` and `before` (exclusive), of `hookId` when given. */
  async *#rows(
    after: number | undefined,
    before: number | undefined,
    reverse: boolean,
    hookId: string | null,
  ): AsyncGenerator<ScannedRow> {
    if (after !== undefined && before !== undefined && after + 1 >= before) return;
    const selector: Deno.KvListSelector = before === undefined
      ? { prefix: DELIVERY_VIEW_PREFIX, ...(after !== undefined ? { start: deliveryViewKey(after + 1) } : {}) }
      : after === undefined
      ? { prefix: DELIVERY_VIEW_PREFIX, end: deliveryViewKey(before) }
      : { start: deliveryViewKey(after + 1), end: deliveryViewKey(before) };
    const limit = this.#options.limit - this.read;
    if (limit <= 0) return;
    const { batchSize } = this.#options;
    for await (const entry of this.#kv.list(selector, { reverse, limit, ...(batchSize ? { batchSize } : {}) })) {
      const seq = entry.key[1] as number;
      // A junk row (hand-edited, a bad write) counts as read, and is passed over.
      const row = rowOf(entry.value, seq);
      this.read++;
      this.position = seq;
      if (row && (hookId === null || row.view.hookId === hookId)) yield row;
    }
  }

  /** One hook's packed summaries numbered between `after` and `before` (exclusive). */
  async *#packed(hookId: string, after: number, before: number, reverse: boolean): AsyncGenerator<ScannedRow> {
    if (after + 1 >= before) return;
    const prefix = hookPackPrefix(hookId);
    // Packs are keyed by their last number: forward from the first whose last is past `after`; backward from
    // the first whose last reaches `before - 1` (it may hold some below), then those before it.
    const selectors: [Deno.KvListSelector, Deno.KvListOptions][] = reverse
      ? [
        [{ prefix, start: [...prefix, before - 1] }, { limit: 1 }],
        [{ prefix, end: [...prefix, before - 1] }, { reverse: true }],
      ]
      : [[{ prefix, start: [...prefix, after + 1] }, {}]];
    for (const [selector, options] of selectors) {
      for await (const entry of this.#kv.list(selector, options)) {
        const views = packViews(entry.value);
        if (reverse) views.reverse();
        for (const view of views) {
          if (view.seq <= after || view.seq >= before) {
            if (reverse ? view.seq <= after : view.seq >= before) return;
            continue;
          }
          this.read++;
          this.position = view.seq;
          yield { view, payload: null };
          if (this.capped) return;
        }
      }
    }
  }
}
