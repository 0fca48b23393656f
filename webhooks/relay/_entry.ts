// An outbox entry and the fan-out record: what `write` stores and workers move.

import { monotonicFactory } from "ulid";
import type { Postback } from "../receiver/mod.ts";
import { SHARED_PARTITION } from "./_keys.ts";
import type { StoredDestination } from "./_destinations.ts";

const ulid = monotonicFactory();

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

/** The item of a postback. */
export function itemOf(postback: Postback): Item {
  return {
    hookId: postback.webhook.id,
    tenantId: postback.community.tenantId,
    postbackId: postback.postbackId,
    index: postback.index,
    activity: postback.activity,
    acceptedAt: postback.receivedAt,
  };
}

/** A fresh entry of `item` for `destination`. */
export function entryFor(item: Item, destination: StoredDestination): OutboxEntry {
  return {
    ...item,
    id: newEntryId(),
    destinationId: destination.id,
    partition: destination.pinned ? destination.id : SHARED_PARTITION,
    attempts: 0,
  };
}

/** The body POSTed for an entry: `{ type, timestamp, data: { webhook, tenantId, postbackId, index, activity } }`. */
export function bodyOf(entry: OutboxEntry): string {
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
