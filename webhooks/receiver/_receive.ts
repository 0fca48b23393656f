// Private steps of the receiver: its JSON answers, the option checks, and the
// shape check of a postback body, and the postback each item is handed on as.

import type { Community, Webhook } from "../types.ts";
import type { Postback } from "./receiver_types.ts";
import { requireNumber } from "../_util.ts";

/** Headers of every answer: JSON, never sniffed as anything else. */
const JSON_TYPE = { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff" };

/** A JSON answer; `error` bodies never carry a value from the request. */
export function answer(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_TYPE, ...headers } : JSON_TYPE });
}

/** Checks an optional numeric option: a positive integer, or `undefined` for the default. */
export function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = requireNumber(value, name, "create receiver", "a positive integer");
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Cannot create receiver: '${name}' must be a positive integer, got ${n}`);
  }
  return n;
}

/** One item of a postback body, shape-checked. */
export interface BodyItem {
  webhook: string;
  activity: Record<string, unknown>;
}

/** The distinct `webhook` URLs of a postback's items, in order of first use. */
export function urlsOf(items: BodyItem[]): string[] {
  return items.length === 1 ? [items[0].webhook] : [...new Set(items.map((item) => item.webhook))];
}

/** UTF-8 only (JSON's encoding, RFC 8259), a leading byte order mark skipped: other bytes would become U+FFFD. */
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Deepest nesting of arrays and objects a body may have: the array, an item
 * and its activity are three. JSON.parse takes any depth, but KV's value
 * serialisation and structuredClone overflow the stack at a few thousand
 * levels, which made such a postback a `500` on every retry.
 */
export const MAX_DEPTH = 1000;

const OPEN_ARRAY = 0x5b, OPEN_OBJECT = 0x7b, CLOSE_ARRAY = 0x5d, CLOSE_OBJECT = 0x7d, QUOTE = 0x22, BACKSLASH = 0x5c;

/** Whether the JSON text in `bytes` nests arrays and objects deeper than `max` (brackets in strings do not count). */
export function nestsDeeper(bytes: Uint8Array, max: number): boolean {
  if (bytes.length <= max) return false; // nesting deeper than `max` takes more than `max` bytes of brackets
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * Parses a body as a JSON array of `{ webhook: string, activity: object }`;
 * the error names the first item that is wrong, never its value.
 */
export function parseItems(
  bytes: Uint8Array,
  maxItems: number,
): { items: BodyItem[] } | { status: 400 | 413; error: string } {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { status: 400, error: "Bad request: the body is not UTF-8" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 400, error: "Bad request: the body is not JSON" };
  }
  if (nestsDeeper(bytes, MAX_DEPTH)) {
    return { status: 400, error: `Bad request: the body nests deeper than ${MAX_DEPTH} levels` };
  }
  if (!Array.isArray(value)) {
    return { status: 400, error: "Bad request: the body must be a JSON array of { webhook, activity }" };
  }
  if (value.length > maxItems) {
    return { status: 413, error: `Too many items: a postback holds at most ${maxItems}` };
  }
  const items: BodyItem[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return { status: 400, error: `Bad request: item ${index} is not an object` };
    }
    const { webhook, activity } = item as Record<string, unknown>;
    // Any length: the store keeps a hook of any self URL (a long one indexed by its hash), and `maxBytes` bounds the body.
    if (typeof webhook !== "string" || webhook === "") {
      return { status: 400, error: `Bad request: item ${index} has no 'webhook' URL` };
    }
    if (typeof activity !== "object" || activity === null || Array.isArray(activity)) {
      return { status: 400, error: `Bad request: item ${index} has no 'activity' object` };
    }
    items.push({ webhook, activity: activity as Record<string, unknown> });
  }
  return { items };
}

/**
 * Item `index` of a postback as `onPostback` and `write` get it: API.md's
 * shape, `{ activity, webhook, community, receivedAt }`; the extras
 * (`postbackId`, `index`, `count`, `seq`) are there to read but not
 * enumerable, so the object compares and spreads as API.md's.
 */
export function postbackAt(
  of: { items: BodyItem[]; webhooks: Webhook[]; community: Community; receivedAt: number; postbackId: string },
  index: number,
  seq?: number,
): Postback {
  const postback = {
    activity: of.items[index].activity,
    webhook: of.webhooks[index],
    community: of.community,
    receivedAt: of.receivedAt,
  };
  // One property at a time: a descriptors object costs V8 more than the four definitions.
  Object.defineProperty(postback, "postbackId", { value: of.postbackId, writable: true, configurable: true });
  Object.defineProperty(postback, "index", { value: index, writable: true, configurable: true });
  Object.defineProperty(postback, "count", { value: of.items.length, writable: true, configurable: true });
  if (seq !== undefined) Object.defineProperty(postback, "seq", { value: seq, writable: true, configurable: true });
  return postback as Postback;
}
