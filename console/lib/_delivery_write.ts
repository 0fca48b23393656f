// The receiver's half of the delivery log: each item of a postback is added
// to the atomic operation that claims its header (the receiver's `write`
// mode), numbered in the log's sequence by that same commit, so a postback is
// logged whole and once, or not at all, in one commit shared with the
// postbacks that arrive with it. The log is trimmed to its retention off the
// answer's path, in batches.

import type { Postback } from "../../webhooks/mod.ts";
import type { DeliveryView } from "./delivery_view.ts";
import { type Delivery, payloadOf, summarize } from "./_delivery_item.ts";
import {
  attemptKey,
  DELIVERY_SEQ_KEY,
  DELIVERY_VIEW_PREFIX,
  deliveryByHookKey,
  deliveryKey,
  deliveryViewKey,
} from "./kv_keys.ts";
import { retryLocked } from "./kv_retry.ts";

/** Bytes of payload one postback may store in all: its commit takes 800 KiB, shared with summaries. */
const POSTBACK_PAYLOAD_BYTES = 480_000;
/** Rows past the retention that wait for a trim; trimming then deletes them in one commit. */
const TRIM_SLACK = 32;
/** Rows one trimming commit deletes at most (four mutations each, within KV's 1,000). */
const TRIM_BATCH = 200;

/** The id of an item's delivery: stable for a postback's retry. */
function rowId(base: string, index: number): string {
  return `${base}-${index}`;
}

/** Adds the delivery of one item to `atomic`, at its place in the sequence (`postback.seq`). */
export function writeDelivery(
  postback: Postback,
  atomic: Deno.AtomicOperation,
  options: { base: string; replay: boolean; expireIn: number },
): void {
  const { activity, webhook, postbackId, index, count, receivedAt } = postback;
  const seq = postback.seq!;
  const item = { webhook: webhook.entity?.resources?.self?.ref, activity };
  const row: Delivery = {
    id: rowId(options.base, index),
    hookId: webhook.id,
    ...(webhook.tenantId ? { tenantId: webhook.tenantId } : {}),
    receivedAt: new Date(receivedAt).toISOString(),
    ...summarize(item),
    status: 200,
    postbackId,
    ...(options.replay ? { replay: true } : {}),
    ...payloadOf(item, Math.floor(POSTBACK_PAYLOAD_BYTES / count)),
  };
  const { payload: _, truncated: __, attempt: ___, ...summary } = row;
  const view: DeliveryView = { seq, ...summary };
  const expireIn = options.expireIn;
  atomic.set(deliveryViewKey(seq), view, { expireIn })
    .set(deliveryByHookKey(view.hookId, seq), view, { expireIn })
    .set(deliveryKey(row.id), row, { expireIn });
}

/** Trims the log to its retention in the background, a batch at a time, once it is past it by a few rows. */
export class Trimmer {
  #kv: Deno.Kv;
  #retain: number;
  #running = false;

  constructor(kv: Deno.Kv, retain: number) {
    this.#kv = kv;
    this.#retain = retain;
  }

  /** Called with the last number written: starts a trim when the log holds enough rows past its retention. */
  wrote(last: number): void {
    if (this.#running || last <= this.#retain + TRIM_SLACK) return;
    this.#running = true;
    this.trim().catch(() => {}).finally(() => this.#running = false);
  }

  /** Deletes every row numbered below the newest `retain` (the counter as committed now). */
  async trim(): Promise<void> {
    const last = (await retryLocked(() => this.#kv.get<number>(DELIVERY_SEQ_KEY))).value ?? 0;
    const keepFrom = last - this.#retain + 1;
    for (;;) {
      const old: DeliveryView[] = [];
      const selector = { prefix: DELIVERY_VIEW_PREFIX, end: deliveryViewKey(keepFrom) };
      for await (const e of this.#kv.list<DeliveryView>(selector, { limit: TRIM_BATCH })) old.push(e.value);
      if (old.length === 0) return;
      const op = this.#kv.atomic();
      for (const view of old) {
        op.delete(deliveryViewKey(view.seq)).delete(deliveryByHookKey(view.hookId, view.seq)).delete(
          deliveryKey(view.id),
        );
        if (view.postbackId && !view.reason) op.delete(attemptKey(view.postbackId));
      }
      await retryLocked(() => op.commit());
      if (old.length < TRIM_BATCH) return;
    }
  }
}
