/**
 * The delivery log: every item of the postbacks the receiver accepted, and
 * every request it refused (with the reason), kept in KV with a retention
 * limit, in commit order, with a change feed for the live page. Filtering
 * and paging are in _delivery_query.ts, the rows in _delivery_item.ts.
 *
 * A postback is stored whole or not at all. Its deliveries become visible in
 * one atomic operation that also bumps the delivery sequence (a counter,
 * checked by versionstamp) and writes a marker of the postback id, so the
 * sequence numbers follow commit order across processes and a retry of the
 * same postback stores nothing twice. Payloads too large to share that
 * operation are written first, under ids derived from the postback id, so a
 * retry overwrites them rather than adding more; unseen, they expire.
 *
 * Trimming reads only the few oldest summaries beyond `retain` (a bounded
 * prefix read) and deletes them in the same operation, so storing costs the
 * same at any history size. Every key also expires after `maxAgeMs`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { DeliveryView } from "../islands/DeliveriesLive.tsx";
import { type AttemptInfo, type Delivery, payloadOf, rejectedRow, summarize } from "./_delivery_item.ts";
import type { ReceiverAttempt } from "../../webhooks/mod.ts";
import {
  attemptKey,
  DELIVERY_SEQ_KEY,
  DELIVERY_VIEW_PREFIX,
  deliveryByHookKey,
  deliveryByHookPrefix,
  deliveryKey,
  deliveryViewKey,
  postbackMarkerKey,
} from "./kv_keys.ts";
import { entryBytes, retryLocked } from "./kv_retry.ts";
import { watchSequence } from "./_watch.ts";
import { AttemptDetails } from "./_attempt_details.ts";
import { type DeliveryFilter, type DeliveryPage, type DeliveryStats, queryLog, statsOf } from "./_delivery_query.ts";

export type { AttemptInfo, Delivery, DeliveryFilter, DeliveryPage, DeliveryStats, DeliveryView };
export { MAX_PAYLOAD_CHARS, MAX_WIDE_PAYLOAD_CHARS } from "./_delivery_item.ts";

/** Most items one postback may hold here: its summaries share one atomic operation. */
export const MAX_POSTBACK_ITEMS = 120;
/** KV's limits of one atomic operation, with room for key encoding. */
const MAX_MUTATIONS = 1000;
const MAX_BYTES = 760_000;

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

interface Marker {
  first: number;
  count: number;
}

/** Where deliveries are kept. */
export class DeliveryStore {
  #kv: Deno.Kv;
  #retain: number;
  #maxAgeMs: number;
  #details: AttemptDetails;
  /** The sequence counter as this process last committed it (`null`: read it). */
  #seq: Deno.KvEntry<number> | null = null;
  /** Writes of this process go one at a time: only other processes race. */
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * @param kv the console's KV
   * @param options retention
   */
  constructor(kv: Deno.Kv, options: DeliveryStoreOptions = {}) {
    this.#kv = kv;
    this.#retain = options.retain ?? 500;
    this.#maxAgeMs = options.maxAgeMs ?? 7 * 24 * 3600_000;
    this.#details = new AttemptDetails(kv, this.#maxAgeMs);
    if (!Number.isInteger(this.#retain) || this.#retain < 1) {
      throw new RangeError(
        `Cannot keep deliveries: 'retain' must be a positive integer, got ${this.#retain}`,
      );
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
    const run = this.#queue.then(() => this.#store(postbackId, entries));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #store(postbackId: string, entries: PostbackEntry[]): Promise<DeliveryView[]> {
    const marker = postbackMarkerKey(postbackId);
    const stored = await this.#stored(marker);
    if (stored) return stored;
    const base = createHash("sha256").update(postbackId).digest("hex").slice(0, 24);
    const receivedAt = new Date().toISOString();
    const rows: Delivery[] = entries.map(({ hookId, item, replay, tenantId }, i) => ({
      id: `${base}-${i}`,
      hookId,
      ...(tenantId ? { tenantId } : {}),
      receivedAt,
      ...summarize(item),
      status: 200,
      postbackId,
      ...(replay ? { replay: true } : {}),
      ...payloadOf(item),
    }));
    return await this.#append(rows, marker);
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
  addRejected(attempt: ReceiverAttempt, hookId = ""): Promise<DeliveryView> {
    const row = rejectedRow(attempt, hookId);
    const run = this.#queue.then(() => this.#append([row], null));
    this.#queue = run.catch(() => {});
    return run.then(([view]) => view);
  }

  /**
   * Appends rows to the sequence in one atomic operation (payloads too large
   * to share it are written first), trimming the oldest beyond the
   * retention in the same operation. With a `marker`, the operation also
   * requires it absent and writes it: a postback is stored once.
   */
  async #append(rows: Delivery[], marker: Deno.KvKey | null): Promise<DeliveryView[]> {
    const kv = this.#kv;
    const expireIn = this.#maxAgeMs;
    const summary = ({ payload: _, truncated: __, attempt: ___, ...view }: Delivery) => view;
    // Summaries: two copies each, in the final operation. Payloads join it
    // when they fit; else they go first, in batches, invisible until then.
    const viewBytes = rows.reduce((sum, row) => sum + 2 * entryBytes(deliveryViewKey(0), summary(row)), 0);
    const payloadBytes = rows.map((row) => entryBytes(deliveryKey(row.id), row));
    const inline = viewBytes + payloadBytes.reduce((a, b) => a + b, 0) <= MAX_BYTES - 50_000;
    if (!inline) {
      let op = kv.atomic();
      let bytes = 0;
      for (const [i, row] of rows.entries()) {
        if (bytes + payloadBytes[i] > MAX_BYTES) {
          const full = op;
          await retryLocked(() => full.commit());
          op = kv.atomic();
          bytes = 0;
        }
        op.set(deliveryKey(row.id), row, { expireIn });
        bytes += payloadBytes[i];
      }
      await retryLocked(() => op.commit());
    }
    for (;;) {
      // The counter as this process last wrote it, if it did (a check of its
      // versionstamp catches another process's write; the counter is then
      // read again); the oldest entries only once the log can be full.
      const used = 2 + rows.length * (inline ? 3 : 2);
      const known = this.#seq;
      const [seq, oldest] = await Promise.all([
        known ?? retryLocked(() => kv.get<number>(DELIVERY_SEQ_KEY)),
        known && known.value + rows.length < this.#retain ? [] : this.#oldest(rows.length, used),
      ]);
      const last = seq.value ?? 0;
      const views: DeliveryView[] = rows.map((row, i) => ({ seq: last + 1 + i, ...summary(row) }));
      const op = kv.atomic().check(seq).set(DELIVERY_SEQ_KEY, last + views.length);
      if (marker) {
        op.check({ key: marker, versionstamp: null })
          .set(marker, { first: last + 1, count: views.length } satisfies Marker, { expireIn });
      }
      for (const [i, view] of views.entries()) {
        op.set(deliveryViewKey(view.seq), view, { expireIn });
        if (view.hookId) op.set(deliveryByHookKey(view.hookId, view.seq), view, { expireIn });
        if (inline) op.set(deliveryKey(view.id), rows[i], { expireIn });
      }
      // Beyond the retention once these are in: the oldest whose number falls below the kept range.
      const keepFrom = last + views.length - this.#retain + 1;
      for (const old of oldest.filter((v) => v.seq < keepFrom)) {
        op.delete(deliveryViewKey(old.seq)).delete(deliveryByHookKey(old.hookId, old.seq))
          .delete(deliveryKey(old.id));
        if (old.postbackId) op.delete(attemptKey(old.postbackId));
      }
      const res = await retryLocked(() => op.commit());
      if (res.ok) {
        this.#seq = { key: DELIVERY_SEQ_KEY, value: last + views.length, versionstamp: res.versionstamp };
        return views;
      }
      this.#seq = null;
      const raced = marker ? await this.#stored(marker) : null;
      if (raced) return raced;
    }
  }

  /**
   * Keeps how an accepted postback's request went (headers without the
   * signature, the verdict's figures, the time taken), for its deliveries'
   * detail page; written in batches (see {@linkcode AttemptDetails}).
   */
  recordAttempt(attempt: ReceiverAttempt): Promise<void> {
    return this.#details.record(attempt);
  }

  /** Writes what waits for its batch now (the console calls it when it closes). */
  flush(): Promise<void> {
    return this.#details.flush();
  }

  /** How the request of a postback went, when it was recorded. */
  attemptOf(postbackId: string): Promise<AttemptInfo | null> {
    return this.#details.of(postbackId);
  }

  /** The deliveries of a postback already stored, or `null`. */
  async #stored(marker: Deno.KvKey): Promise<DeliveryView[] | null> {
    const entry = await retryLocked(() => this.#kv.get<Marker>(marker));
    if (!entry.value) return null;
    const { first, count } = entry.value;
    const out: DeliveryView[] = [];
    const selector = { start: deliveryViewKey(first), end: deliveryViewKey(first + count) };
    for await (const e of this.#kv.list<DeliveryView>(selector)) out.push(e.value);
    return out;
  }

  /**
   * The oldest summaries of the log: a bounded read of its start, never a
   * full list. It takes up to twice the new count (within the operation's
   * mutation limit), so a lowered `retain` catches up.
   */
  async #oldest(added: number, used: number): Promise<DeliveryView[]> {
    const limit = Math.min(2 * added, Math.floor((MAX_MUTATIONS - used) / 4));
    const out: DeliveryView[] = [];
    for await (const e of this.#kv.list<DeliveryView>({ prefix: DELIVERY_VIEW_PREFIX }, { limit })) out.push(e.value);
    return out;
  }

  /**
   * Lists summaries, newest first; with `forward`, oldest first.
   *
   * @param options `hookId` to keep one hook's, `after` to keep only
   *   deliveries later in the sequence than that number, `limit` (default
   *   50), `forward` to read from the oldest (paging on from `after`
   *   without a gap)
   * @returns the summaries
   */
  async list(
    options: { hookId?: string; after?: number; limit?: number; forward?: boolean } = {},
  ): Promise<DeliveryView[]> {
    const prefix = options.hookId ? deliveryByHookPrefix(options.hookId) : DELIVERY_VIEW_PREFIX;
    const selector: Deno.KvListSelector = options.after !== undefined
      ? { prefix, start: [...prefix, options.after + 1] }
      : { prefix };
    const out: DeliveryView[] = [];
    for await (
      const entry of this.#kv.list<DeliveryView>(selector, {
        reverse: !options.forward,
        limit: options.limit ?? 50,
      })
    ) out.push(entry.value);
    return out;
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
    return (await this.#kv.get<Delivery>(deliveryKey(id))).value;
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
