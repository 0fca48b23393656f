/**
 * How a delivery's entries are laid out in KV: the receiver's path stores
 * its summary (with a short payload) and a longer payload as UTF-8 bytes,
 * which KV keeps as they are; readers take either those bytes or the objects
 * other writers and earlier versions stored.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { DeliveryView } from "./_view.ts";
import type { Delivery } from "./_delivery_item.ts";

/**
 * The body entry of a delivery the receiver's `write` stored: the payload
 * alone, its summary being the one at its number (not written twice).
 */
export interface PayloadEntry {
  payload: string;
  truncated: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Longest payload (characters) kept in its summary's entry rather than an entry of its own. */
export const INLINE_PAYLOAD_CHARS = 4096;
/** Separates a summary's JSON from a payload kept with it: JSON text never holds a raw newline. */
const NEWLINE = 0x0a;

/**
 * The entries of a delivery the receiver's path stores, as UTF-8 bytes,
 * which KV keeps as they are (an object costs a V8 serialisation per
 * entry): its row, the summary's JSON followed by a newline and the payload
 * when that is short and whole, so a delivery costs one entry, not two; and
 * that JSON, for the hook index. A longer payload keeps an entry of
 * its own ({@linkcode payloadValue}); its row then holds the summary alone.
 */
export function viewEntries(view: DeliveryView, body: PayloadEntry): { row: Uint8Array; json: string } {
  const json = JSON.stringify(view);
  return { row: utf8(payloadInRow(body) ? `${json}\n${body.payload}` : json), json };
}

/**
 * `text` as UTF-8 bytes, in a slice of node's shared buffer pool: a new
 * ArrayBuffer for each entry (what `TextEncoder.encode` makes) costs more
 * than encoding it (measured: 2.3-2.7 µs against 0.5-0.8 µs for a 570-byte
 * row). KV copies the bytes when it commits.
 */
export function utf8(text: string): Uint8Array {
  return Buffer.from(text, "utf8");
}

/** Whether a delivery's payload went into its row ({@linkcode viewEntries}), so it has no entry of its own. */
export function payloadInRow(body: PayloadEntry): boolean {
  return !body.truncated && body.payload.length <= INLINE_PAYLOAD_CHARS;
}

/**
 * Whether `value` has a summary's shape: a row hand-edited into junk (or
 * left so by a bad write) is passed over by every reader, never shown.
 */
export function isView(value: unknown): value is DeliveryView {
  return summarised(value) && Number.isSafeInteger((value as { seq?: unknown }).seq);
}

/** Whether `value` holds a summary's fields (but its number). */
function summarised(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && typeof v.hookId === "string" && typeof v.receivedAt === "string" &&
    // No status: a row of the layout of 2026-11-24 (accepted deliveries only), which may not have expired yet.
    (v.status === undefined || typeof v.status === "number") && typeof v.verb === "string" &&
    typeof v.title === "string" &&
    typeof v.webhook === "string";
}

/** Whether `value` has a payload entry's shape (a stored delivery's too). */
function payloadShaped(value: unknown): value is PayloadEntry {
  const v = value as Record<string, unknown>;
  return typeof v.payload === "string" && typeof v.truncated === "boolean";
}

/**
 * A summary as read: JSON bytes (the receiver's path), or the object (other
 * writers, earlier versions); `null`: junk, or (given `seq`, the number of
 * its key) a summary of another number.
 */
export function viewOf(value: unknown, seq?: number): DeliveryView | null {
  return summaryOf(value, seq)?.view ?? null;
}

/**
 * A summary as read ({@linkcode viewOf}), with its JSON text when it was stored as bytes (the hook index packs that
 * text as it is); `null`: junk, or a summary of another number than `seq`.
 */
export function summaryOf(value: unknown, seq?: number): { view: DeliveryView; json?: string } | null {
  const ok = (view: unknown) => isView(view) && (seq === undefined || view.seq === seq);
  if (!(value instanceof Uint8Array)) return ok(value) ? { view: value as DeliveryView } : null;
  const end = value.indexOf(NEWLINE);
  const json = decoder.decode(end === -1 ? value : value.subarray(0, end));
  try {
    const view: unknown = JSON.parse(json);
    return ok(view) ? { view: view as DeliveryView, json } : null;
  } catch {
    return null;
  }
}

/** A summary entry as read ({@linkcode viewOf}), and the payload kept with it (`null`: none there); `null`: junk. */
export function rowOf(value: unknown, seq?: number): { view: DeliveryView; payload: string | null } | null {
  const view = viewOf(value, seq);
  if (view === null) return null;
  const end = value instanceof Uint8Array ? value.indexOf(NEWLINE) : -1;
  return { view, payload: end === -1 ? null : decoder.decode((value as Uint8Array).subarray(end + 1)) };
}

/**
 * A payload entry as the receiver's path stores it: when its text is ASCII
 * (a byte a character either way, so it fits as the text does), a flag byte
 * (1: cut) then the text as bytes, kept by KV as they are; else the object.
 */
export function payloadValue(entry: PayloadEntry): PayloadEntry | Uint8Array {
  // deno-lint-ignore no-control-regex
  if (/[^\u0000-\u007f]/.test(entry.payload)) return entry;
  const bytes = new Uint8Array(entry.payload.length + 1);
  bytes[0] = entry.truncated ? 1 : 0;
  encoder.encodeInto(entry.payload, bytes.subarray(1));
  return bytes;
}

/**
 * A delivery's body entry as read, whichever layout wrote it (bytes: {@linkcode payloadValue}'s); `null`: none, or
 * junk (hand-edited, a bad write), which no reader shows.
 */
export function bodyOf(value: unknown): Delivery | PayloadEntry | null {
  if (value instanceof Uint8Array) return { payload: decoder.decode(value.subarray(1)), truncated: value[0] === 1 };
  if (!value || typeof value !== "object" || !payloadShaped(value)) return null;
  return "id" in value && !summarised(value) ? null : value as Delivery | PayloadEntry;
}

/** A stored delivery from its body entry and its summary, whichever layout the body entry has. */
export function deliveryOf(body: Delivery | PayloadEntry, view: DeliveryView | null): Delivery | null {
  if ("id" in body) return body;
  if (view === null) return null;
  const { seq: _, ...summary } = view;
  return { ...summary, payload: body.payload, truncated: body.truncated };
}
