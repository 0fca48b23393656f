// What became of a postback item's forwards: the state of each of its
// entries, kept at ["relay_entry_by_postback", postbackId, index, entryId]
// and written in the same commits that add, finish or redeliver the entry
// (no extra commit, no check), so `forwards` is one prefix list.

import { deadKey, DUE_PREFIX, fanoutKey, forwardKey, forwardPrefix, PAUSED_PREFIX } from "./_keys.ts";
import { describe as describeValue } from "../_util.ts";

/** How long an entry's state is kept: as long as its attempts (30 days), renewed by each write. */
export const FORWARD_TTL_MS = 30 * 86_400_000;

/**
 * One forward of a postback item: an outbox entry bound for one destination,
 * and where it stands.
 *
 * @example Usage
 * ```ts
 * import type { RelayForward } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const forward: RelayForward = {
 *   entryId: "msg_1", destinationId: "d1", index: 0, state: "pending", attempts: 1, nextAttemptAt: 5_000,
 * };
 * assert.equal(forward.state, "pending"); // tried once, tried again at 5 s
 * ```
 */
export interface RelayForward {
  /** The entry's id, its `webhook-id` (pass it to `relay.attempts`). */
  entryId: string;
  /** Where it goes; `null` while the item waits for a worker to fan it out to the destinations. */
  destinationId: string | null;
  /** The item's place in the postback. */
  index: number;
  /** `pending` (waiting, kept while its destination is disabled, or being tried), `delivered` (a 2xx answer) or `dead` (a dead letter). */
  state: "pending" | "delivered" | "dead";
  /** Attempts made. */
  attempts: number;
  /** When it is next tried (ms), while pending; `null` otherwise, and while its destination is disabled (kept). */
  nextAttemptAt: number | null;
}

const KEPT = { expireIn: FORWARD_TTL_MS };

/** What names an entry's state: its id, postback and item. */
type EntryRef = { id: string; postbackId: string; index: number };

/** What the index key holds. */
export interface ForwardState {
  destinationId: string | null;
  state: RelayForward["state"];
  attempts: number;
  nextAttemptAt: number | null;
}

/** Sets the state of `entry` in `atomic` (no check). */
export function setForward(
  atomic: Deno.AtomicOperation,
  entry: EntryRef & { destinationId: string | null; attempts: number },
  state: RelayForward["state"],
  nextAttemptAt: number | null,
): void {
  const value: ForwardState = { destinationId: entry.destinationId, state, attempts: entry.attempts, nextAttemptAt };
  atomic.set(forwardKey(entry.postbackId, entry.index, entry.id), value, KEPT);
}

/** Deletes the state of `entry` in `atomic`. */
export function deleteForward(
  atomic: Deno.AtomicOperation,
  entry: EntryRef,
): void {
  atomic.delete(forwardKey(entry.postbackId, entry.index, entry.id));
}

const STATES = new Set<unknown>(["pending", "delivered", "dead"]);

/** Whether `value` is a state `setForward` writes (type checks only): one edited by hand into junk is none. */
function isForwardState(value: unknown): value is ForwardState {
  const v = value as ForwardState | null;
  return typeof v === "object" && v !== null && STATES.has(v.state) && typeof v.attempts === "number" &&
    (v.destinationId === null || typeof v.destinationId === "string") &&
    (v.nextAttemptAt === null || typeof v.nextAttemptAt === "number");
}

/**
 * Every forward of a postback (of one item when `index` is given), by item
 * then entry id, however many: KV's list reads them in batches, none left
 * out (a postback of 100 items to 11 destinations has 1,100). Its caller
 * checks the arguments.
 */
export async function listForwards(kv: Deno.Kv, postbackId: string, index?: number): Promise<RelayForward[]> {
  const out: RelayForward[] = [];
  for await (const entry of kv.list<ForwardState>({ prefix: forwardPrefix(postbackId, index) }, { batchSize: 500 })) {
    if (!isForwardState(entry.value) || typeof entry.key[3] !== "string") continue; // edited into junk: no forward
    const { destinationId, state, attempts, nextAttemptAt } = entry.value;
    out.push({
      entryId: entry.key[3] as string,
      destinationId,
      index: entry.key[2] as number,
      state,
      attempts,
      nextAttemptAt,
    });
  }
  return out;
}

/**
 * The longest entry id looked for, as `deadLetter` and `attempts` cap it: no entry has a longer one, and a KV key holds
 * 2,048 bytes (1,024 characters of UTF-8 can take 3,072), so a longer one is `null` rather than a KV error.
 */
const MAX_ENTRY_ID = 256;

/**
 * Where entry `entryId` stands (`relay.entryState`): a dead letter (one `get`), an item waiting to be fanned out (the
 * id `forwards` gives it then; one `get`), kept for a disabled destination, or waiting in the outbox, else `null`.
 * No key is by entry id there, so the paused entries and the outbox are read through (values too: KV lists no keys
 * alone), and not as one snapshot (an entry moved while it reads may be missed): an operator's question
 * (`relay attempts`), not a hot path.
 */
export async function entryState(kv: Deno.Kv, entryId: string): Promise<"waiting" | "paused" | "dead" | null> {
  if (typeof entryId !== "string" || entryId === "") {
    throw new TypeError(`Cannot find entry: 'entryId' must be a non-empty string, got ${describeValue(entryId)}`);
  }
  if (entryId.length > MAX_ENTRY_ID) return null;
  if ((await kv.get(deadKey(entryId))).versionstamp !== null) return "dead";
  if ((await kv.get(fanoutKey(entryId))).versionstamp !== null) return "waiting";
  for await (const kept of kv.list({ prefix: PAUSED_PREFIX }, { batchSize: 500 })) {
    if (kept.key[2] === entryId) return "paused";
  }
  for await (const due of kv.list({ prefix: DUE_PREFIX }, { batchSize: 500 })) {
    if (due.key.at(-1) === entryId) return "waiting";
  }
  return null;
}
