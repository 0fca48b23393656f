// An outbox entry and the fan-out record: what `write` stores and workers move.

import type { Postback } from "../receiver/mod.ts";
import { describe } from "../_util.ts";
import { SHARED_PARTITION, ulid } from "./_keys.ts";
import type { Destination } from "./_types.ts";

/** What a postback item carries into the outbox. */
export interface Item {
  hookId: string;
  tenantId: string;
  postbackId: string;
  index: number;
  activity: Record<string, unknown>;
  /** When the receiver accepted it (ms). */
  acceptedAt: number;
}

/** One delivery to one destination, stored at its due key. */
export interface OutboxEntry extends Item {
  /** The entry's id: the `webhook-id` of every attempt. */
  id: string;
  destinationId: string;
  /** `SHARED_PARTITION`, or the destination's id when it is pinned. */
  partition: string;
  /** Attempts made so far. */
  attempts: number;
  /** The last failure, when there was one. */
  lastError?: string;
  /** Set while a worker holds it. */
  lease?: { owner: string; until: number };
}

/** An item stored while the destination list was not known fresh. */
export interface FanoutRecord extends Item {
  id: string;
  /** When `write` stored it: destinations added later do not get it. */
  writtenAt: number;
}

/** A new entry id (`msg_` and a ULID). */
export function newEntryId(): string {
  return `msg_${ulid()}`;
}

/**
 * Refuses what is not a receiver's postback; and, by name, one made or changed by hand that no receiver hands on:
 * a worker passes over an entry whose activity is not an object or whose acceptance time is not a time (never sent,
 * never a dead letter), forwards() looks an item up by an integer index, and KV refuses a key without one (failing
 * the caller's whole commit).
 */
export function checkPostback(postback: Postback): void {
  if (typeof postback?.webhook?.id !== "string" || typeof postback.postbackId !== "string") {
    throw new TypeError("Cannot write to the relay: 'postback' must be a postback of a receiver");
  }
  const refuse = (field: string, what: string, value: unknown) =>
    new TypeError(`Cannot write to the relay: 'postback.${field}' must be ${what}, got ${describe(value)}`);
  const { index, activity, receivedAt, community } = postback;
  if (!Number.isSafeInteger(index) || index < 0) throw refuse("index", "an integer of 0 or more", index);
  if (typeof activity !== "object" || activity === null || Array.isArray(activity)) {
    throw refuse("activity", "an object", activity);
  }
  if (typeof receivedAt !== "number" || !Number.isFinite(receivedAt)) {
    throw refuse("receivedAt", "a time in ms", receivedAt);
  }
  if (typeof community?.tenantId !== "string") throw refuse("community", "a community with a tenantId", community);
}

/** The item of a postback. */
export function itemOf(postback: Postback): Item {
  return {
    hookId: postback.webhook.id,
    tenantId: postback.community.tenantId,
    postbackId: postback.postbackId,
    // -0 as 0: it passes the check as the integer it equals, but KV keys tell -0 from 0, and forwards(id, 0) would miss it.
    index: postback.index + 0,
    activity: postback.activity,
    acceptedAt: postback.receivedAt,
  };
}

/**
 * What a due key holds: the entry without what its key tells (`id`,
 * `partition`), and without `attempts` while none was made. An earlier
 * version stored those three too; {@linkcode entryAt} reads both forms.
 */
export type StoredEntry = Omit<OutboxEntry, "id" | "partition" | "attempts"> & {
  id?: string;
  partition?: string;
  attempts?: number;
};

/** The partition of `destination`'s entries. */
export function partitionOf(destination: Pick<Destination, "id" | "pinned">): string {
  return destination.pinned ? destination.id : SHARED_PARTITION;
}

/** What a due key holds for `item` bound for `destination` (no attempt made). */
export function storedFor(item: Item, destinationId: string): StoredEntry {
  return {
    hookId: item.hookId,
    tenantId: item.tenantId,
    postbackId: item.postbackId,
    index: item.index,
    activity: item.activity,
    acceptedAt: item.acceptedAt,
    destinationId,
  };
}

/** The entry at due key `key` (`["relay_due", partition, dueAt, id]`), stored in either form. */
export function entryAt(key: Deno.KvKey, value: StoredEntry): OutboxEntry {
  return { ...value, id: key[3] as string, partition: key[1] as string, attempts: value.attempts ?? 0 };
}

/** What a due key holds for `entry`. */
export function storedOf(entry: OutboxEntry): StoredEntry {
  const { id: _id, partition: _partition, attempts, ...rest } = entry;
  return attempts === 0 ? rest : { ...rest, attempts };
}

/** The body POSTed for an entry: `{ type, timestamp, data: { webhook, tenantId, postbackId, index, activity } }`. */
export function bodyOf(entry: Item): string {
  const verb = entry.activity.verb;
  return JSON.stringify({
    type: typeof verb === "string" ? verb : "",
    timestamp: new Date(entry.acceptedAt).toISOString(),
    data: {
      webhook: entry.hookId,
      tenantId: entry.tenantId,
      postbackId: entry.postbackId,
      index: entry.index,
      activity: entry.activity,
    },
  });
}

/**
 * Whether a due key's value is an entry a worker can take and send: one edited by hand into junk (`null`, a string, a
 * record without its destination, activity or a readable acceptance time) is not, and is passed over, never thrown at.
 */
export function isStoredEntry(value: unknown): value is StoredEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Partial<Record<keyof StoredEntry, unknown>>;
  return typeof v.destinationId === "string" && typeof v.activity === "object" && v.activity !== null &&
    (typeof v.acceptedAt === "number" || typeof v.acceptedAt === "string") &&
    !Number.isNaN(new Date(v.acceptedAt).getTime());
}

/** The body of `entry`, or `null` when JSON cannot write its activity (edited by hand: no postback holds such). */
export function writtenBody(entry: Item): string | null {
  try {
    return bodyOf(entry);
  } catch {
    return null;
  }
}

/** Whether JSON can write `value`: one holding a BigInt or a cycle (KV keeps both; no postback holds one) cannot. */
function jsonWritable(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a fan-out record's value is one a worker can turn into entries: one edited by hand into junk (`null`, a
 * string, a record without its id, item or write time, an activity JSON cannot write) is not, and is passed over,
 * never thrown at.
 */
export function isFanoutRecord(value: unknown): value is FanoutRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Partial<Record<keyof FanoutRecord, unknown>>;
  return typeof v.id === "string" && typeof v.writtenAt === "number" && typeof v.hookId === "string" &&
    typeof v.postbackId === "string" && typeof v.index === "number" && typeof v.activity === "object" &&
    v.activity !== null && (typeof v.acceptedAt === "number" || typeof v.acceptedAt === "string") &&
    !Number.isNaN(new Date(v.acceptedAt).getTime()) && jsonWritable(v.activity);
}
