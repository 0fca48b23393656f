// The receiver's half of the delivery log: each item of a postback is added
// to the atomic operation that claims its header (the receiver's `write`
// mode), numbered in the log's sequence by that same commit, so a postback is
// logged whole and once, or not at all, in one commit shared with the
// postbacks that arrive with it. The log is trimmed to its retention off the
// answer's path, in batches.

import type { Postback } from "../../webhooks/mod.ts";
import type { DeliveryView } from "./_view.ts";
import {
  acceptedRow,
  dropDelivery,
  type PayloadEntry,
  payloadInRow,
  payloadValue,
  summaryOf,
  viewEntries,
  viewOf,
} from "./_delivery_item.ts";
import { dropDetailsBelow } from "./_attempt_details.ts";
import { dropPacksBelow } from "./_hook_pack.ts";
import { DELIVERY_SEQ_KEY, DELIVERY_VIEW_PREFIX, deliveryKey, deliveryViewKey } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";

/** Bytes of payload one postback may store in all: its commit takes 800 KiB, shared with summaries. */
const POSTBACK_PAYLOAD_BYTES = 480_000;
/** Rows past the retention that wait for a trim; trimming then deletes them in one commit. */
const TRIM_SLACK = 32;
/** Rows one trimming commit deletes at most (four mutations each, within KV's 1,000). */
const TRIM_BATCH = 200;

/** Adds the delivery of one item to `atomic`, at its place in the sequence (`postback.seq`); returns its summary. */
export function writeDelivery(
  postback: Postback,
  atomic: Deno.AtomicOperation,
  options: { base: string; replay: boolean; expireIn: number },
): { view: DeliveryView; json: string } {
  const { activity, webhook, postbackId, index, count, receivedAt } = postback;
  const row = acceptedRow(
    {
      hookId: webhook.id,
      tenantId: webhook.tenantId,
      item: { webhook: webhook.entity?.resources?.self?.ref, activity },
      replay: options.replay,
    },
    {
      base: options.base,
      index,
      postbackId,
      receivedAt: new Date(receivedAt).toISOString(),
      payloadBudget: Math.floor(POSTBACK_PAYLOAD_BYTES / count),
    },
  );
  const view: DeliveryView = { seq: postback.seq!, ...summaryOf(row) };
  const body: PayloadEntry = { payload: row.payload, truncated: row.truncated };
  const entries = viewEntries(view, body);
  // The row alone: the hook index packs its summary later, off the answer's path (_hook_index.ts).
  atomic.set(deliveryViewKey(view.seq), entries.row, { expireIn: options.expireIn });
  // A longer payload has a body entry of its own, the payload alone: its summary is the one at its number.
  if (!payloadInRow(body)) atomic.set(deliveryKey(row.id), payloadValue(body), { expireIn: options.expireIn });
  return { view, json: entries.json };
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
    const hooks = new Set<string>();
    for (;;) {
      const old: DeliveryView[] = [];
      const selector = { prefix: DELIVERY_VIEW_PREFIX, end: deliveryViewKey(keepFrom) };
      for await (const e of this.#kv.list(selector, { limit: TRIM_BATCH })) old.push(viewOf(e.value));
      if (old.length === 0) break;
      const op = this.#kv.atomic();
      for (const view of old) dropDelivery(op, view), hooks.add(view.hookId);
      await retryLocked(() => op.commit());
      if (old.length < TRIM_BATCH) break;
    }
    await dropTrimmedBelow(this.#kv, keepFrom, hooks);
  }
}

/**
 * After the log's rows below `keepFrom` went (trimmed by either writer):
 * the packs of their hooks, then the request details' batches whose
 * postbacks are all trimmed, go too. The second is tried whatever the
 * first did; a failure is thrown after both.
 */
export async function dropTrimmedBelow(kv: Deno.Kv, keepFrom: number, hookIds: Iterable<string>): Promise<void> {
  const packs = await dropPacksBelow(kv, keepFrom, hookIds).then(() => null, (error: unknown) => ({ error }));
  await dropDetailsBelow(kv, keepFrom);
  if (packs) throw packs.error;
}
