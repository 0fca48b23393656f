/**
 * One postback item made into a delivery: its summary for tables and its
 * payload text, each cut to fit the KV limits whatever the item holds; its
 * ids; and the KV entries of a delivery, written and deleted in one place
 * (their byte layout is _delivery_layout.ts's).
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { DeliveryView } from "./_view.ts";
import { cutAt } from "../lib/text_fit.ts";
import { attemptAtKey, attemptKey, deliveryByHookKey, deliveryKey, deliveryViewKey } from "./_keys.ts";
import type { ReceiverAttempt } from "../../webhooks/mod.ts";
import { EPOCH, numberAt } from "./_numbers.ts";
import type { ResponseInfo } from "../lib/answers.ts";

/** The receiver's report of a request, with what it answered when the console kept it. */
export type AnsweredAttempt = ReceiverAttempt & { response?: ResponseInfo };

/**
 * How a request went, as the detail page shows it: the receiver's report
 * (`ReceiverAttempt`) without the body excerpt, which is the payload.
 */
export interface AttemptInfo {
  /** The request's headers, the `Authorization` value reduced to its non-secret parameters. */
  headers: Record<string, string>;
  /** The header's tenant id, when it parsed. */
  tenantId?: string;
  /** The header's client id, when it parsed. */
  clientId?: string;
  /** How old the header's timestamp was on arrival, in ms. */
  timestampAgeMs?: number;
  /** Items in the body, when it parsed. */
  itemCount?: number;
  /** Time taken to answer, in ms. */
  durationMs: number;
  /** What was answered (headers and the body's first bytes), when kept; its status is the delivery's. */
  response?: ResponseInfo;
}

/** A stored delivery with its payload (its place in the sequence is its summary's). */
export interface Delivery extends Omit<DeliveryView, "seq"> {
  /** The item as received (JSON text, cut to fit one KV value); of a rejected attempt, the body's first bytes. */
  payload: string;
  /** Whether the payload was cut. */
  truncated: boolean;
  /** Of a rejected attempt: how the request went. */
  attempt?: AttemptInfo;
}

/** Longest payload text kept per delivery when every character is Latin-1. */
export const MAX_PAYLOAD_CHARS = 48_000;
/**
 * Longest payload text kept when a character lies beyond Latin-1: such a
 * string takes two bytes per character in KV, whose values hold 64 KiB.
 */
export const MAX_WIDE_PAYLOAD_CHARS = 30_000;

function text(value: unknown, max: number): string {
  return typeof value === "string" ? cutAt(value, max) : "";
}

function record(value: unknown): Record<string, unknown> {
  return (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
}

/** The summary fields of an item: verb, title and the platform's webhook URL, each bounded. */
export function summarize(item: unknown): { verb: string; title: string; webhook: string } {
  const activity = record(record(item).activity);
  const object = record(activity.object);
  return {
    verb: text(activity.verb, 100),
    title: text(activity.title, 300) || text(object.displayName, 300) ||
      text(object.summary, 300) || text(activity.content, 300),
    webhook: text(record(item).webhook, 500),
  };
}

/** The payload text of an item, cut so that it fits one KV value and, when given, a budget of bytes. */
export function payloadOf(item: unknown, budgetBytes = Infinity): { payload: string; truncated: boolean } {
  const full = JSON.stringify(item) ?? "null";
  // Short enough to fit even at two bytes a character: kept whole, no need to look for wide characters.
  if (full.length <= Math.min(MAX_WIDE_PAYLOAD_CHARS, budgetBytes / 2)) return { payload: full, truncated: false };
  // The whole text, not the part kept: a string with one wide character anywhere keeps two bytes for every
  // character, in its slices too, and KV stores it so.
  // deno-lint-ignore no-control-regex
  const wide = /[^\u0000-\u00ff]/.test(full);
  const max = Math.min(
    wide ? MAX_WIDE_PAYLOAD_CHARS : MAX_PAYLOAD_CHARS,
    Math.floor(wide ? budgetBytes / 2 : budgetBytes),
  );
  if (full.length <= max) return { payload: full, truncated: false };
  // Between graphemes: a lone half of a surrogate pair would be stored as U+FFFD.
  return { payload: cutAt(full, max), truncated: true };
}

/** The log entry of a refused request: its reason, the body's first bytes and how it went, never the signature. */
export function rejectedRow(attempt: AnsweredAttempt, hookId: string): Delivery {
  const { headers, tenantId, clientId, timestampAgeMs, itemCount, durationMs, response } = attempt;
  return {
    id: `r${crypto.randomUUID().replaceAll("-", "").slice(0, 23)}`,
    hookId: hookId.slice(0, 200),
    ...(tenantId ? { tenantId: tenantId.slice(0, 200) } : {}),
    receivedAt: new Date(attempt.receivedAt).toISOString(),
    verb: "",
    title: "",
    webhook: "",
    status: attempt.status,
    reason: cutAt(attempt.reason, 300),
    ...(attempt.postbackId ? { postbackId: attempt.postbackId } : {}),
    payload: cutAt(attempt.bodyExcerpt, 2048),
    truncated: false,
    attempt: { headers, tenantId, clientId, timestampAgeMs, itemCount, durationMs, ...(response ? { response } : {}) },
  };
}

/** The base of a postback's delivery ids (`{base}-{index}`): the same for its retry. */
export function rowBase(postbackId: string): string {
  return createHash("sha256").update(postbackId).digest("hex").slice(0, 24);
}

/**
 * Least width of the base-36 number in the id base of a postback the
 * receiver stored ("q" and its first number): an earlier version's counter
 * numbers are padded to 9 digits; this version's time-major ones take 10
 * until the 2050s, so each kind sorts in number order.
 */
const SEQ_DIGITS = 9;

/**
 * The base of the delivery ids of a postback stored by the receiver's `write`
 * (`{base}-{index}`): "q" and the number of its first delivery, fixed width,
 * so its rows are written in key order, at the end of the log's pages.
 */
export function seqBase(firstSeq: number): string {
  return `q${firstSeq.toString(36).padStart(SEQ_DIGITS, "0")}`;
}

/** Of a delivery stored by the receiver's `write` (id `q{first}-{index}`): its postback's first number and its index. */
function seqIdParts(id: string): { first: number; index: number } | null {
  const match = /^q([0-9a-z]+)-(\d+)$/.exec(id);
  return match ? { first: parseInt(match[1], 36), index: Number(match[2]) } : null;
}

/** The number of a delivery stored by the receiver's `write` (its id is `q{first}-{index}`), else `null`. */
export function seqOfId(id: string): number | null {
  const parts = seqIdParts(id);
  return parts ? parts.first + parts.index : null;
}

/** Where a report is kept: a key of its own, or (stored by the receiver's `write`) its postback's first number. */
export type DetailsAt = { key: Deno.KvKey } | { first: number };

/**
 * Where the request details of a delivery's postback are kept: by its first
 * number (stored by the receiver's `write`), else under its postback id;
 * `null` for a refused row (they are its own).
 */
export function detailsAtOf(view: { id: string; postbackId?: string; reason?: string }): DetailsAt | null {
  if (view.reason) return null;
  const parts = seqIdParts(view.id);
  if (parts) return { first: parts.first };
  return view.postbackId ? { key: attemptKey(view.postbackId) } : null;
}

/** The key an earlier version kept a delivery's request details under, or `null` for a refused row. */
export function attemptKeyOf(view: { id: string; postbackId?: string; reason?: string }): Deno.KvKey | null {
  if (view.reason) return null;
  const parts = seqIdParts(view.id);
  if (parts) return attemptAtKey(parts.first);
  return view.postbackId ? attemptKey(view.postbackId) : null;
}

/** One item of a postback, accepted: its delivery row, its payload cut to fit `payloadBudget` bytes when given. */
export function acceptedRow(
  entry: { hookId: string; item: unknown; replay?: boolean; tenantId?: string },
  at: { base: string; index: number; postbackId: string; receivedAt: string; payloadBudget?: number },
): Delivery {
  return {
    id: `${at.base}-${at.index}`,
    hookId: entry.hookId,
    ...(entry.tenantId ? { tenantId: entry.tenantId } : {}),
    receivedAt: at.receivedAt,
    ...summarize(entry.item),
    status: 200,
    postbackId: at.postbackId,
    ...(entry.replay ? { replay: true } : {}),
    ...payloadOf(entry.item, at.payloadBudget),
  };
}

/** A delivery's summary: the row without its payload (and its request's details). */
export function summaryOf({ payload: _, truncated: __, attempt: ___, ...view }: Delivery): Omit<DeliveryView, "seq"> {
  return view;
}

/** Adds a delivery's entries to `op`: its summary at its number and (with `row`) the row itself. */
export function putDelivery(
  op: Deno.AtomicOperation,
  view: DeliveryView,
  row: Delivery | null,
  expireIn: number,
): void {
  op.set(deliveryViewKey(view.seq), view, { expireIn });
  if (row) op.set(deliveryKey(row.id), row, { expireIn });
}

/**
 * The lowest of this version's time-major numbers (_numbers.ts): a day past
 * their epoch, far above any number of the counter earlier versions kept.
 * Only rows numbered below it may have a copy by hook, or request details of
 * their own by number: this version writes neither.
 */
const TIME_MAJOR_FROM = numberAt(EPOCH + 86_400_000);

/**
 * Deletes a delivery's entries in `op` (with the hook's copy an earlier
 * version wrote); an accepted one's request details go with it. `inline`:
 * its payload was read in its row (this version then wrote no body entry);
 * deleting a key that is not there still costs the commit a search.
 */
export function dropDelivery(op: Deno.AtomicOperation, view: DeliveryView, inline = false): void {
  op.delete(deliveryViewKey(view.seq));
  const earlier = view.seq < TIME_MAJOR_FROM;
  if (earlier) op.delete(deliveryByHookKey(view.hookId, view.seq));
  if (!inline || earlier) op.delete(deliveryKey(view.id));
  // A refused row (a duplicate, a failed try) names the postback too: its details stay with the stored one.
  // Of this version's receiver rows, the details are in batches (trimmed by number), not an entry of their own.
  const attempt = earlier || !seqIdParts(view.id) ? attemptKeyOf(view) : null;
  if (attempt) op.delete(attempt);
}
