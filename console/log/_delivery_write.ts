// Writing the delivery log, one path: every row goes in through Module A's
// group commit (`commitInGroup`), which the receiver's `write` mode uses too.
// The receiver adds each item of a postback to the atomic operation that
// claims its header (writeDelivery), so a postback is logged whole and once,
// or not at all, in one commit shared with the postbacks that arrive with
// it. Refused requests and `addPostback` (appendRows) are jobs of the same
// groups: a postback's marker is checked absent in its commit, so a retry
// stores nothing twice. Rows are numbered by this process's allocator
// (_numbers.ts): no counter is checked or written by every commit.

import { countRows } from "./_written.ts";
import type { Postback } from "../../webhooks/mod.ts";
import { commitInGroup } from "../../webhooks/mod.ts";
import type { DeliveryView } from "./_view.ts";
import { type Delivery, payloadOf, putDelivery, summarize, summaryOf } from "./_delivery_item.ts";
import { type PayloadEntry, payloadInRow, payloadValue, viewEntries, viewOf } from "./_delivery_layout.ts";
import { dropDetailsBelow } from "./_attempt_details.ts";
import { dropPacksBelow } from "./_hook_pack.ts";
import { deliveryKey, deliveryViewKey } from "./_keys.ts";
import { entryBytes, retryLocked } from "../lib/kv_retry.ts";
import type { Allocator } from "./_numbers.ts";

/** Bytes of payload one postback may store in all: its commit takes 800 KiB, shared with summaries. */
const POSTBACK_PAYLOAD_BYTES = 480_000;
/** Bytes of one job past which its payloads are written first, in commits of their own. */
const JOB_BYTES = 600_000;
/** Bytes of payloads one of those commits takes. */
const BODY_BYTES = 700_000;

/**
 * Adds the delivery of one item to `atomic` at number `seq`; returns its
 * summary. The summary is built as it is stored, its fields in the order of
 * `acceptedRow`'s, not as a row whose payload is then taken off (two more
 * copies of its fields a delivery, on the receiver's main thread).
 */
export function writeDelivery(
  postback: Postback,
  atomic: Deno.AtomicOperation,
  options: { seq: number; base: string; replay: boolean; expireIn: number },
): { view: DeliveryView; json: string } {
  const { activity, webhook, postbackId, index, count, receivedAt } = postback;
  const item = { webhook: webhook.entity?.resources?.self?.ref, activity };
  const { verb, title, webhook: ref } = summarize(item);
  const view: DeliveryView = {
    seq: options.seq,
    id: `${options.base}-${index}`,
    hookId: webhook.id,
    ...(webhook.tenantId ? { tenantId: webhook.tenantId } : {}),
    receivedAt: new Date(receivedAt).toISOString(),
    verb,
    title,
    webhook: ref,
    status: 200,
    postbackId,
    ...(options.replay ? { replay: true } : {}),
  };
  const body: PayloadEntry = payloadOf(item, Math.floor(POSTBACK_PAYLOAD_BYTES / count));
  const entries = viewEntries(view, body);
  // The row alone: the hook index packs its summary later, off the answer's path (_hook_index.ts).
  atomic.set(deliveryViewKey(view.seq), entries.row, { expireIn: options.expireIn });
  countRows(atomic, view.seq, 1);
  // A longer payload has a body entry of its own, the payload alone: its summary is the one at its number.
  if (!payloadInRow(body)) atomic.set(deliveryKey(view.id), payloadValue(body), { expireIn: options.expireIn });
  return { view, json: entries.json };
}

/** The rows of one postback (with its marker) or of one refused request (without). */
export interface Part {
  rows: Delivery[];
  marker: Deno.KvKey | null;
}

/** What a postback's marker holds: where its rows are in the log. */
interface Marker {
  first: number;
  count: number;
}

/** The summaries of a postback already stored, or `null`. */
async function storedOf(kv: Deno.Kv, marker: Deno.KvKey): Promise<DeliveryView[] | null> {
  const entry = await retryLocked(() => kv.get<Marker>(marker));
  if (!entry.value) return null;
  const { first, count } = entry.value;
  const out: DeliveryView[] = [];
  const selector = { start: deliveryViewKey(first), end: deliveryViewKey(first + count) };
  for await (const e of kv.list(selector)) {
    const view = viewOf(e.value, e.key[1] as number);
    if (view) out.push(view);
  }
  return out;
}

/**
 * Appends a part to the log in the group commit: numbered by `allocator`, its
 * marker checked absent and written in the same commit. Resolves with its
 * summaries, or those stored the first time when its marker was there.
 * Payloads too large to share a commit are written first, under ids derived
 * from the postback id (a retry overwrites them); unseen, they expire.
 */
export async function appendRows(
  kv: Deno.Kv,
  allocator: Allocator,
  part: Part,
  expireIn: number,
): Promise<DeliveryView[]> {
  const { rows, marker } = part;
  const bytes = rows.reduce((sum, row) => sum + entryBytes(deliveryKey(row.id), row), 0);
  const inline = bytes <= JOB_BYTES;
  await allocator.ready();
  if (!inline) {
    const before = marker ? await storedOf(kv, marker) : null;
    if (before) return before;
    await writeBodies(kv, rows, expireIn);
  }
  for (let tries = 0;; tries++) {
    let views: DeliveryView[] = [];
    const result = await commitInGroup(kv, {
      checks: marker ? [{ key: marker, versionstamp: null }] : [],
      build: (atomic) => {
        const first = allocator.take(rows.length);
        views = rows.map((row, k) => ({ seq: first + k, ...summaryOf(row) }));
        if (marker) atomic.set(marker, { first, count: rows.length } satisfies Marker, { expireIn });
        for (const [k, view] of views.entries()) putDelivery(atomic, view, inline ? rows[k] : null, expireIn);
        countRows(atomic, first, rows.length);
      },
    });
    if (result.kind === "committed") return views;
    if (result.kind === "error") throw result.error;
    // Its marker is there: stored before (a retry, or another process).
    const stored = marker ? await storedOf(kv, marker) : null;
    if (stored) return stored;
    if (tries >= 3) throw new Error("Cannot store a postback: its marker keeps changing");
  }
}

/** Writes rows' payloads in commits of their own, before their summaries make them visible. */
async function writeBodies(kv: Deno.Kv, rows: Delivery[], expireIn: number): Promise<void> {
  let op = kv.atomic();
  let bytes = 0;
  for (const row of rows) {
    const size = entryBytes(deliveryKey(row.id), row);
    if (bytes + size > BODY_BYTES) {
      const full = op;
      await retryLocked(() => full.commit());
      op = kv.atomic();
      bytes = 0;
    }
    op.set(deliveryKey(row.id), row, { expireIn });
    bytes += size;
  }
  await retryLocked(() => op.commit());
}

/**
 * After the log's rows below `keepFrom` went (trimmed): the packs of their
 * hooks, then the request details' batches whose postbacks are all trimmed,
 * go too. The second is tried whatever the first did; a failure is thrown
 * after both.
 */
export async function dropTrimmedBelow(kv: Deno.Kv, keepFrom: number, hookIds: Iterable<string>): Promise<void> {
  const packs = await dropPacksBelow(kv, keepFrom, hookIds).then(() => null, (error: unknown) => ({ error }));
  await dropDetailsBelow(kv, keepFrom);
  if (packs) throw packs.error;
}
