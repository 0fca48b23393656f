/**
 * The delivery log: every item of the postbacks the receiver accepted, and
 * every request it refused (with the reason), kept in KV with a retention
 * limit, in commit order, with a change feed for the live page. Filtering
 * and paging are in _delivery_query.ts, the rows in _delivery_item.ts, the
 * appending (with group commit) in _delivery_append.ts.
 *
 * A postback is stored whole or not at all. Its deliveries become visible in
 * one atomic operation that also bumps the delivery sequence (a counter,
 * checked by versionstamp) and writes a marker of the postback id, so the
 * sequence numbers follow commit order across processes and a retry of the
 * same postback stores nothing twice. Postbacks that arrive while one is
 * being stored are stored together in the next operation, each with its own
 * marker, so a busy receiver pays one commit per group. Payloads too large to share that
 * operation are written first, under ids derived from the postback id, so a
 * retry overwrites them rather than adding more; unseen, they expire.
 *
 * Trimming reads only the few oldest summaries beyond `retain` (a bounded
 * prefix read) and deletes them in the same operation, so storing costs the
 * same at any history size. Every key also expires after `maxAgeMs`.
 *
 * @module
 */

import type { DeliveryView } from "./_view.ts";
import {
  acceptedRow,
  type AnsweredAttempt,
  type AttemptInfo,
  bodyOf,
  type Delivery,
  deliveryOf,
  detailsAtOf,
  rejectedRow,
  rowBase,
  rowOf,
  seqBase,
  seqOfId,
} from "./_delivery_item.ts";
import type { Postback } from "../../webhooks/mod.ts";
import { attemptKey, DELIVERY_SEQ_KEY, deliveryKey, deliveryViewKey, postbackMarkerKey } from "./_keys.ts";
import { watchSequence } from "./_watch.ts";
import { Trimmer, writeDelivery } from "./_delivery_write.ts";
import { AttemptDetails } from "./_attempt_details.ts";
import { SequenceWriter } from "./_delivery_append.ts";
import { HookIndexer } from "./_hook_index.ts";
import { lineOfView } from "./_hook_pack.ts";
import { listLog } from "./_log_scan.ts";
import { type DeliveryFilter, type DeliveryPage, type DeliveryStats, queryLog, statsOf } from "./_delivery_query.ts";

export type { AnsweredAttempt, AttemptInfo, Delivery, DeliveryFilter, DeliveryPage, DeliveryStats, DeliveryView };
export { MAX_PAYLOAD_CHARS, MAX_WIDE_PAYLOAD_CHARS } from "./_delivery_item.ts";
export { MAX_HOOK_TAIL } from "./_log_scan.ts";

/** Most items one postback may hold here: its summaries share one atomic operation. */
export const MAX_POSTBACK_ITEMS = 120;

/** One item of a postback and the webhook record it was delivered to. */
export interface PostbackEntry {
  /** The webhook record id. */
  hookId: string;
  /** The item as received (`{ webhook, activity }`). */
  item: unknown;
  /** Whether it came from the console's "Replay to receiver", not from the platform. */
  replay?: boolean;
  /** The community's tenant id. */
  tenantId?: string;
}

/** Options of {@linkcode DeliveryStore}. */
export interface DeliveryStoreOptions {
  /** How many deliveries to keep (newest); default 500. */
  retain?: number;
  /** How long a delivery lives at most, in ms; default 7 days. */
  maxAgeMs?: number;
}

/** Where deliveries are kept. */
export class DeliveryStore {
  #kv: Deno.Kv;
  #details: AttemptDetails;
  #writer: SequenceWriter;
  #trimmer: Trimmer;
  #index: HookIndexer;
  #maxAgeMs: number;
  #lastSeq = 0;

  /**
   * @param kv the console's KV
   * @param options retention
   */
  constructor(kv: Deno.Kv, options: DeliveryStoreOptions = {}) {
    this.#kv = kv;
    const retain = options.retain ?? 500;
    const maxAgeMs = options.maxAgeMs ?? 7 * 24 * 3600_000;
    this.#details = new AttemptDetails(kv, maxAgeMs);
    this.#writer = new SequenceWriter(kv, retain, maxAgeMs);
    this.#trimmer = new Trimmer(kv, retain);
    this.#index = new HookIndexer(kv, maxAgeMs, retain);
    this.#maxAgeMs = maxAgeMs;
    if (!Number.isInteger(retain) || retain < 1) {
      throw new RangeError(`Cannot keep deliveries: 'retain' must be a positive integer, got ${retain}`);
    }
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
    return this.#writer.append({ rows, marker: postbackMarkerKey(postbackId) }).then((views) => this.#wrote(views));
  }

  /** After a write: the hook index follows when due. */
  #wrote<T extends DeliveryView[]>(views: T): T {
    this.#index.written(views.map((view) => lineOfView(view)));
    const last = views.at(-1)?.seq ?? 0;
    if (last > this.#lastSeq) this.#lastSeq = last;
    this.#index.wrote(this.#lastSeq);
    return views;
  }

  /**
   * The receiver's `write` (with `sequence: DELIVERY_SEQ_KEY`): adds the
   * delivery of one item of a postback to the atomic operation that claims
   * its header, at its place in the sequence (`postback.seq`), so the
   * postback is logged whole and once in the receiver's one commit. Its
   * delivery ids are `q{n}-{index}`, `n` the number of its first delivery
   * (base 36), so its entries are written in key order.
   *
   * @param postback the item, as the receiver hands it to `write`
   * @param atomic the receiver's atomic operation
   * @param replay whether the console's "Replay to receiver" sent it
   */
  write(postback: Postback, atomic: Deno.AtomicOperation, replay = false): void {
    const base = seqBase(postback.seq! - postback.index);
    const { view, json } = writeDelivery(postback, atomic, { base, replay, expireIn: this.#maxAgeMs });
    // Packed for the hook index once the postback is known stored (recordAttempt).
    this.#index.stage(postback.postbackId, lineOfView(view, json));
    if (postback.seq! > this.#lastSeq) this.#lastSeq = postback.seq!;
  }

  /**
   * After the receiver stored postbacks: trims the log to its retention, and
   * brings the hook index up to date, in the background when due.
   */
  trimSoon(): void {
    this.#trimmer.wrote(this.#lastSeq);
    this.#index.wrote(this.#lastSeq);
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
    return this.#writer.append({ rows: [rejectedRow(attempt, hookId)], marker: null })
      .then((views) => this.#wrote(views)[0]);
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
    if (firstSeq !== undefined) this.#index.confirm(firstSeq, attempt.postbackId, attempt.itemCount ?? 0);
    return this.#details.record(
      attempt,
      firstSeq === undefined ? { key: attemptKey(attempt.postbackId) } : { first: firstSeq },
    );
  }

  /** Writes what waits for its batch now, and waits for a hook index pass (the console calls it when it closes). */
  async flush(): Promise<void> {
    await this.#details.flush();
    await this.#index.idle();
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
    return statsOf(this.#kv, hookId, 24, now);
  }

  /** One delivery with its payload, or `null`. */
  async get(id: string): Promise<Delivery | null> {
    if (id.length > 200) return null; // ids are short; a longer one (from a URL) names none
    const seq = seqOfId(id);
    if (seq === null) return (await this.#kv.get<Delivery>(deliveryKey(id))).value;
    // Stored by the receiver's write: the payload, and the summary at its number.
    const [body, entry] = await this.#kv.getMany<[unknown, unknown]>([deliveryKey(id), deliveryViewKey(seq)]);
    const row = entry.value === null ? null : rowOf(entry.value);
    // A short payload is kept in its summary's entry; a longer one (or an earlier version's) in its own.
    const stored = row?.payload != null ? { payload: row.payload, truncated: false } : bodyOf(body.value);
    // The entry at that number must be this delivery's (an id naming another postback's number finds nothing).
    if (row && row.view.id !== id) return null;
    return stored ? deliveryOf(stored, row?.view ?? null) : null;
  }

  /**
   * Watches the delivery sequence: calls `onChange` once at the start, after
   * each write, and at least every `pollMs` (default 1 s) until `signal`
   * aborts. See {@linkcode watchSequence}.
   */
  watch(signal: AbortSignal, onChange: () => Promise<void>, pollMs = 1000): Promise<void> {
    return watchSequence(this.#kv, DELIVERY_SEQ_KEY, signal, onChange, pollMs);
  }
}
