/**
 * Deliveries: the postbacks the receiver accepted, kept in KV with a
 * retention limit, and a change feed for the live page.
 *
 * Each item of a postback (`{ webhook, activity }`) is one delivery, stored
 * under three keys in one atomic operation: the payload, a small summary
 * (all deliveries, newest last by ULID) and the summary by webhook record.
 * After each write the oldest deliveries beyond `retain` are deleted, and
 * every key also expires after `maxAgeMs`. The key `console_delivery_latest`
 * is bumped on every delivery: the live page watches it with `kv.watch`,
 * which works on a local KV file and over KV Connect alike, so several
 * console processes sharing one KV all see every delivery.
 *
 * @module
 */

import { monotonicFactory } from "ulid";
import type { DeliveryView } from "../islands/DeliveriesLive.tsx";
import {
  DELIVERY_LATEST_KEY,
  DELIVERY_VIEW_PREFIX,
  deliveryByHookKey,
  deliveryByHookPrefix,
  deliveryKey,
  deliveryViewKey,
} from "./_keys.ts";
import { withLockRetry } from "../../webhooks/_kv.ts";

export type { DeliveryView };

/** A stored delivery with its payload. */
export interface Delivery extends DeliveryView {
  /** The item as received (JSON text, cut at `MAX_PAYLOAD_CHARS`). */
  payload: string;
  /** Whether the payload was cut. */
  truncated: boolean;
}

/** Longest payload text kept per delivery (KV values hold 64 KiB). */
export const MAX_PAYLOAD_CHARS = 48_000;

const ulid = monotonicFactory();

function text(value: unknown, max = 300): string {
  return typeof value === "string" ? value.slice(0, max) : "";
}

function summarize(item: unknown): { verb: string; title: string; webhook: string } {
  const obj = (item && typeof item === "object" ? item : {}) as Record<
    string,
    unknown
  >;
  const activity = (obj.activity && typeof obj.activity === "object" ? obj.activity : {}) as Record<string, unknown>;
  const object = (activity.object && typeof activity.object === "object" ? activity.object : {}) as Record<
    string,
    unknown
  >;
  return {
    verb: text(activity.verb, 100),
    title: text(activity.title) || text(object.displayName) ||
      text(object.summary) || text(activity.content),
    webhook: text(obj.webhook, 2000),
  };
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
  #retain: number;
  #maxAgeMs: number;

  /**
   * @param kv the console's KV
   * @param options retention
   */
  constructor(kv: Deno.Kv, options: DeliveryStoreOptions = {}) {
    this.#kv = kv;
    this.#retain = options.retain ?? 500;
    this.#maxAgeMs = options.maxAgeMs ?? 7 * 24 * 3600_000;
    if (!Number.isInteger(this.#retain) || this.#retain < 1) {
      throw new RangeError(
        `Cannot keep deliveries: 'retain' must be a positive integer, got ${this.#retain}`,
      );
    }
  }

  /**
   * Stores each item of a postback as one delivery of `hookId`.
   *
   * @param hookId the webhook record id
   * @param items the postback's array
   * @returns the stored summaries, in order
   */
  async add(hookId: string, items: unknown[]): Promise<DeliveryView[]> {
    const views: DeliveryView[] = [];
    const receivedAt = new Date().toISOString();
    const expireIn = this.#maxAgeMs;
    for (const item of items) {
      const id = ulid();
      const view: DeliveryView = { id, hookId, receivedAt, ...summarize(item) };
      let payload = JSON.stringify(item) ?? "null";
      const truncated = payload.length > MAX_PAYLOAD_CHARS;
      if (truncated) payload = payload.slice(0, MAX_PAYLOAD_CHARS);
      const delivery: Delivery = { ...view, payload, truncated };
      const res = await withLockRetry(() =>
        this.#kv.atomic()
          .set(deliveryKey(id), delivery, { expireIn })
          .set(deliveryViewKey(id), view, { expireIn })
          .set(deliveryByHookKey(hookId, id), view, { expireIn })
          .set(DELIVERY_LATEST_KEY, { id, hookId })
          .commit()
      );
      if (!res.ok) throw new Error("Cannot store the delivery");
      views.push(view);
    }
    await this.#trim();
    return views;
  }

  async #trim(): Promise<void> {
    let seen = 0;
    const old: DeliveryView[] = [];
    for await (
      const entry of this.#kv.list<DeliveryView>({
        prefix: DELIVERY_VIEW_PREFIX,
      }, { reverse: true })
    ) {
      if (++seen > this.#retain) old.push(entry.value);
    }
    for (let i = 0; i < old.length; i += 300) {
      const batch = old.slice(i, i + 300);
      await withLockRetry(() => {
        const op = this.#kv.atomic();
        for (const v of batch) {
          op.delete(deliveryKey(v.id)).delete(deliveryViewKey(v.id)).delete(deliveryByHookKey(v.hookId, v.id));
        }
        return op.commit();
      });
    }
  }

  /**
   * Lists summaries, newest first.
   *
   * @param options `hookId` to keep one hook's, `after` to keep only
   *   deliveries newer than that id, `limit` (default 50)
   * @returns the summaries
   */
  async list(
    options: { hookId?: string; after?: string; limit?: number } = {},
  ): Promise<DeliveryView[]> {
    const prefix = options.hookId ? deliveryByHookPrefix(options.hookId) : DELIVERY_VIEW_PREFIX;
    const selector: Deno.KvListSelector = options.after
      ? { prefix, start: [...prefix, options.after + "\0"] }
      : { prefix };
    const out: DeliveryView[] = [];
    for await (
      const entry of this.#kv.list<DeliveryView>(selector, {
        reverse: true,
        limit: options.limit ?? 50,
      })
    ) out.push(entry.value);
    return out;
  }

  /** One delivery with its payload, or `null`. */
  async get(id: string): Promise<Delivery | null> {
    return (await this.#kv.get<Delivery>(deliveryKey(id))).value;
  }

  /**
   * Watches for new deliveries: calls `onChange` once at the start, after
   * each write (several quick writes may be reported once), and at least
   * every `pollMs` (a safety net, and the only signal where the KV cannot
   * watch), until `signal` aborts.
   *
   * @param signal ends the watch
   * @param onChange called on each change
   * @param pollMs longest time between two calls; default 5 seconds
   */
  async watch(
    signal: AbortSignal,
    onChange: () => Promise<void>,
    pollMs = 5000,
  ): Promise<void> {
    if (signal.aborted) return;
    let reader: ReadableStreamDefaultReader<unknown> | null = null;
    try {
      reader = this.#kv.watch([DELIVERY_LATEST_KEY]).getReader();
    } catch {
      reader = null; // this KV cannot watch: poll only
    }
    let wake: () => void = () => {};
    const stop = () => {
      wake();
      reader?.cancel().catch(() => {});
    };
    signal.addEventListener("abort", stop, { once: true });
    // One read at a time; a read still pending after a poll is reused.
    let pending: Promise<boolean> | null = null;
    try {
      while (!signal.aborted) {
        if (reader && !pending) {
          pending = reader.read().then((r) => !r.done, () => false);
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const tick = new Promise<"poll">((resolve) => {
          wake = () => resolve("poll");
          timer = setTimeout(wake, pollMs);
        });
        const result = await Promise.race(pending ? [pending, tick] : [tick]);
        clearTimeout(timer);
        if (signal.aborted) break;
        if (result !== "poll") {
          pending = null;
          if (result === false) reader = null; // the watch ended: poll only
        }
        // The first read is the current value: reporting it too closes the
        // gap between the caller's first listing and the start of the watch.
        await onChange();
      }
    } finally {
      signal.removeEventListener("abort", stop);
      await reader?.cancel().catch(() => {});
    }
  }
}
