/**
 * The delivery log: every item the receiver accepted and every request it
 * refused (with the reason), kept in KV with a retention limit, numbered
 * time-major (_numbers.ts), with a live feed (_live.ts). Paging:
 * _delivery_query.ts; rows: _delivery_item.ts, _delivery_layout.ts;
 * writing: _delivery_write.ts; trimming: _trim.ts.
 *
 * A postback is stored whole or not at all, in one atomic operation shared
 * with those that arrive with it (`addPostback`'s marker, checked absent,
 * stores a retry nothing twice). No key is checked or written by every
 * commit: each process numbers its rows in a writer slot of its own and
 * bumps one of eight written shards with `sum` (no check), which wake the
 * live view and count rows for trimming.
 *
 * @module
 */

import type { DeliveryView } from "./_view.ts";
import {
  acceptedRow,
  type AnsweredAttempt,
  type AttemptInfo,
  type Delivery,
  detailsAtOf,
  rejectedRow,
  rowBase,
  seqBase,
} from "./_delivery_item.ts";
import type { Postback } from "../../webhooks/mod.ts";
import { attemptKey, postbackMarkerKey, WRITTEN_KEYS } from "./_keys.ts";
import { watchKeys } from "./_watch.ts";
import { appendRows, type Part, writeDelivery } from "./_delivery_write.ts";
import { lineOfView } from "./_hook_pack.ts";
import { AttemptDetails } from "./_attempt_details.ts";
import { HookIndexer } from "./_hook_index.ts";
import { listLog } from "./_log_scan.ts";
import { Allocator, PER_MS, PostbackNumbering } from "./_numbers.ts";
import { LiveReader } from "./_live.ts";
import { Trimmer } from "./_trim.ts";
import {
  type DeliveryFilter,
  type DeliveryPage,
  type DeliveryStats,
  getDelivery,
  queryLog,
  statsOf,
} from "./_delivery_query.ts";

export type { AnsweredAttempt, AttemptInfo, Delivery, DeliveryFilter, DeliveryPage, DeliveryStats, DeliveryView };
export { MAX_PAYLOAD_CHARS, MAX_WIDE_PAYLOAD_CHARS } from "./_delivery_item.ts";
export { MAX_HOOK_TAIL } from "./_log_scan.ts";
export { LiveReader } from "./_live.ts";
export { type DeliveryStoreOptions, MAX_POSTBACK_ITEMS, type PostbackEntry } from "./_store_types.ts";
import { type DeliveryStoreOptions, MAX_POSTBACK_ITEMS, type PostbackEntry, storeSettings } from "./_store_types.ts";

/** Where deliveries are kept. */
export class DeliveryStore {
  #kv: Deno.Kv;
  #details: AttemptDetails;
  #numbers: Allocator;
  #trimmer: Trimmer;
  #index: HookIndexer;
  #maxAgeMs: number;
  #settleMs: number;
  /** The first number of the postback whose items `write` is numbering. */
  #numbering: PostbackNumbering;

  /**
   * @param kv the console's KV
   * @param options retention and the settle window
   */
  constructor(kv: Deno.Kv, options: DeliveryStoreOptions = {}) {
    this.#kv = kv;
    const { retain, maxAgeMs, settleMs } = storeSettings(options);
    this.#settleMs = settleMs;
    this.#details = new AttemptDetails(kv, maxAgeMs);
    this.#numbers = new Allocator(kv);
    this.#numbering = new PostbackNumbering(this.#numbers);
    this.#trimmer = new Trimmer(kv, retain, { maxAgeMs });
    this.#index = new HookIndexer(kv, this.#numbers, { expireIn: maxAgeMs, settleMs: this.#settleMs });
    this.#maxAgeMs = maxAgeMs;
  }

  /**
   * Resolves once this process may number rows (it holds a writer slot):
   * the receiver awaits it before its `write` runs.
   */
  ready(): Promise<void> {
    return this.#numbers.ready();
  }

  /** Whether this process holds a writer slot or could lease one (read only; `false`: it would answer 500). */
  canNumber(): Promise<boolean> {
    return this.#numbers.canNumber();
  }

  /**
   * Stores each item of a postback as one delivery of `hookId` (a postback
   * of its own, under a random id).
   *
   * @param hookId the webhook record id
   * @param items the postback's array
   * @returns the stored summaries, in order
   */
  add(hookId: string, items: unknown[]): Promise<DeliveryView[]> {
    return this.addPostback(crypto.randomUUID(), items.map((item) => ({ hookId, item })));
  }

  /**
   * Stores the items of one postback atomically: all of them or none. Called
   * again with the same `postbackId` (a retry after a failure or a kill), it
   * stores nothing and returns the deliveries stored the first time.
   *
   * @param postbackId the postback's id (the receiver's `postbackId`)
   * @param entries each item with its webhook record id, at most {@linkcode MAX_POSTBACK_ITEMS}
   * @returns the stored summaries, in order
   */
  addPostback(postbackId: string, entries: PostbackEntry[]): Promise<DeliveryView[]> {
    if (typeof postbackId !== "string" || !postbackId || postbackId.length > 200) {
      throw new TypeError("Cannot store a postback: 'postbackId' must be a string of 1 to 200 characters");
    }
    if (entries.length > MAX_POSTBACK_ITEMS) {
      throw new RangeError(
        `Cannot store a postback of ${entries.length} items: the limit is ${MAX_POSTBACK_ITEMS}`,
      );
    }
    if (entries.length === 0) return Promise.resolve([]);
    const base = rowBase(postbackId);
    const receivedAt = new Date().toISOString();
    const rows = entries.map((entry, index) => acceptedRow(entry, { base, index, postbackId, receivedAt }));
    const part = { rows, marker: postbackMarkerKey(postbackId) };
    return this.#append(part);
  }

  /** `rows` of this process were committed (counted in their own commit): trims and indexes when due. */
  #committed(rows: number): void {
    if (rows === 0) return;
    this.#trimmer.wrote(rows);
    this.#index.wrote(rows);
  }

  /** Appends a part in the group commit; its rows are then counted and known to the hook index. */
  #append(part: Part): Promise<DeliveryView[]> {
    return appendRows(this.#kv, this.#numbers, part, this.#maxAgeMs).then((views) => {
      this.#index.stored(views.map((view) => lineOfView(view)));
      this.#committed(views.length);
      return views;
    }, (error: unknown) => {
      // Stored or not (a remote commit's answer lost): the hook index reads the log there.
      this.#index.unsure(this.#numbers.last);
      throw error;
    });
  }

  /**
   * The receiver's `write`: adds the delivery of one item of a postback to
   * the atomic operation that claims its header, at a number this process
   * takes for it (a postback's items take consecutive numbers), so the
   * postback is logged whole and once in the receiver's one commit. Its
   * delivery ids are `q{n}-{index}`, `n` the number of its first delivery
   * (base 36), so its entries are written in key order.
   *
   * @param postback the item, as the receiver hands it to `write`
   * @param atomic the receiver's atomic operation
   * @param replay whether the console's "Replay to receiver" sent it
   * @returns the delivery's number
   * @throws {Error} When this process holds no writer slot (see {@linkcode DeliveryStore.ready})
   */
  write(postback: Postback, atomic: Deno.AtomicOperation, replay = false): number {
    const first = this.#numbering.firstOf(postback);
    const seq = first + postback.index;
    const { view, json } = writeDelivery(postback, atomic, {
      seq,
      base: seqBase(first),
      replay,
      expireIn: this.#maxAgeMs,
    });
    // Packed from memory once its postback is known stored (recordAttempt), when no other process numbers there.
    this.#index.stage(postback.postbackId, { seq, hookId: view.hookId, at: postback.receivedAt, json });
    return seq;
  }

  /**
   * Brings the hook index up to date with the log now (the console does at
   * start, for a log an earlier version or a stopped console left; it is
   * also kept up to date as deliveries are written, at most a few hundred
   * rows behind).
   */
  index(): Promise<void> {
    return this.#index.run();
  }

  /**
   * Logs a request the receiver refused (or answered as a duplicate): one
   * entry of the sequence, with the reason, the body's first bytes and how
   * the request went, never the signature.
   *
   * @param attempt the receiver's report
   * @param hookId the webhook record the request was addressed to, if known
   * @returns its summary
   */
  addRejected(attempt: AnsweredAttempt, hookId = ""): Promise<DeliveryView> {
    return this.#append({ rows: [rejectedRow(attempt, hookId)], marker: null }).then((views) => views[0]);
  }

  /**
   * Keeps how an accepted postback's request went (headers without the
   * signature, the verdict's figures, the time taken), for its deliveries'
   * detail page; written in batches (see {@linkcode AttemptDetails}).
   *
   * @param attempt the receiver's report of a postback it accepted
   * @param firstSeq the number of the postback's first delivery, when the
   *   receiver's `write` stored it (its ids are `q{n}-{index}`)
   */
  recordAttempt(attempt: AnsweredAttempt, firstSeq?: number): Promise<void> {
    if (!attempt.postbackId) return Promise.resolve();
    // Stored by the receiver's write: its rows are counted, and known stored to the hook index.
    if (firstSeq !== undefined) {
      this.#index.confirm(firstSeq, attempt.postbackId, attempt.itemCount ?? 0);
      this.#committed(attempt.itemCount ?? 0);
    }
    return this.#details.record(
      attempt,
      firstSeq === undefined ? { key: attemptKey(attempt.postbackId) } : { first: firstSeq },
    );
  }

  /**
   * Writes what waits for its batch now, trims the
   * log to its retention, waits for a hook index pass and puts its late rows
   * in their hooks' packs (the console calls it when it closes).
   */
  async flush(): Promise<void> {
    await this.#details.flush();
    await this.#trimmer.trim().catch(() => {});
    await this.#index.finish();
  }

  /** How the request of a delivery's postback went, when it was recorded (a refused row holds its own). */
  async attemptOf(delivery: { id: string; postbackId?: string; reason?: string }): Promise<AttemptInfo | null> {
    const at = detailsAtOf(delivery);
    return at ? await this.#details.of(at) : null;
  }

  /**
   * Lists summaries, newest first; with `forward`, oldest first.
   *
   * @param options `hookId` to keep one hook's, `after` to keep only
   *   deliveries later in the sequence than that number, `limit` (default
   *   50), `forward` to read from the oldest (paging on from `after`
   *   without a gap)
   * @returns the summaries; one hook's list reads at most
   *   {@linkcode MAX_HOOK_TAIL} rows of other hooks in the log's newest part
   *   (above the hook index's mark, a few hundred rows but right after an
   *   upgrade), so it may hold fewer than `limit` then: paging on from its
   *   last goes on without a gap
   */
  list(
    options: { hookId?: string; after?: number; limit?: number; forward?: boolean } = {},
  ): Promise<DeliveryView[]> {
    return listLog(this.#kv, options);
  }

  /** A page of the log, newest first, filtered (see {@linkcode DeliveryFilter}). */
  page(filter: DeliveryFilter = {}): Promise<DeliveryPage> {
    return queryLog(this.#kv, filter);
  }

  /** The last 24 hours of the log (of one hook, or all), per hour, accepted against rejected. */
  stats(hookId?: string, now?: number): Promise<DeliveryStats> {
    return statsOf(this.#kv, hookId, 24, now, (at) => this.#details.pending(at));
  }

  /** One delivery with its payload, or `null`. */
  get(id: string): Promise<Delivery | null> {
    return getDelivery(this.#kv, id);
  }

  /**
   * Watches the log: calls `onChange` once at the start, after writes (of
   * any process, as their rows are counted), and at least every `pollMs`
   * (default 1 s) until `signal` aborts. See {@linkcode watchKeys}.
   */
  watch(signal: AbortSignal, onChange: () => Promise<void>, pollMs = 1000): Promise<void> {
    return watchKeys(this.#kv, WRITTEN_KEYS, signal, onChange, pollMs);
  }

  /**
   * A reader of the deliveries not yet given to it (of one hook, or all),
   * each once, late commits too: see {@linkcode LiveReader}.
   */
  liveReader(hookId?: string): LiveReader {
    return new LiveReader(this.#kv, { hookId, settleMs: this.#settleMs });
  }

  /** The lowest number the live view reads again after `seq` (its settle window). */
  settleFrom(seq: number): number {
    return Math.max(0, seq - this.#settleMs * PER_MS);
  }
}
