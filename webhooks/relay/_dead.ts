// Reading what happened: the attempts of an entry, the dead letters, and
// sending a dead letter again.

import { commitMending } from "./counters/mod.ts";
import { retryWhileLocked } from "../kv/mod.ts";
import { type OutboxEntry, storedOf } from "./_entry.ts";
import { setForward } from "./_forwards.ts";
import {
  attemptPrefix,
  DEAD_BY_HOOK_READY_KEY,
  DEAD_PREFIX,
  deadByDestinationKey,
  deadByDestinationPrefix,
  deadByHookKey,
  deadByHookPrefix,
  deadKey,
  destinationKey,
  dueKey,
  OUTBOX_BUMP_KEY,
  SHARED_PARTITION,
} from "./_keys.ts";
import { describe as describeValue, pageLimit } from "../_util.ts";
import { type CursorKeyPart, pageCursor, takeCursor } from "../cursor/mod.ts";
import { onlyFields } from "./_options.ts";
import { readable } from "./damaged/mod.ts";
import type { DeadLetter, DeadLetterPage, DeadLetterQuery, RelayAttempt } from "./_types.ts";

/** The attempts of one entry, oldest first. */
export async function listAttempts(kv: Deno.Kv, entryId: string): Promise<RelayAttempt[]> {
  if (typeof entryId !== "string" || entryId === "") {
    throw new TypeError(`Cannot list attempts: 'entryId' must be a non-empty string, got ${describeValue(entryId)}`);
  }
  if (entryId.length > MAX_ID) return []; // no entry has such an id, and it would not fit in a KV key
  const out: RelayAttempt[] = [];
  for await (const entry of kv.list<RelayAttempt>({ prefix: attemptPrefix(entryId) })) {
    if (isAttempt(entry.value)) out.push(entry.value); // one edited by hand into junk is passed over
  }
  return out;
}

/** Whether `value` is an attempt as a worker records it (type checks only). */
function isAttempt(value: unknown): value is RelayAttempt {
  const a = value as RelayAttempt | null;
  return typeof a === "object" && a !== null && typeof a.time === "number" && typeof a.status === "number";
}

/**
 * How many attempt records of `entryId` {@linkcode listAttempts} passes over, edited into junk: for the command line,
 * which must not say that none is kept when some are, damaged.
 */
export async function damagedAttempts(kv: Deno.Kv, entryId: string): Promise<number> {
  if (entryId.length > MAX_ID) return 0;
  let damaged = 0;
  for await (const entry of kv.list({ prefix: attemptPrefix(entryId) })) if (!isAttempt(entry.value)) damaged++;
  return damaged;
}

/** Whether `value` is a dead letter as a worker writes it (type checks only): one edited into junk is none. */
function isDeadLetter(value: unknown): value is DeadLetter {
  const v = value as DeadLetter | null;
  return typeof v === "object" && v !== null && typeof v.id === "string" && typeof v.destinationId === "string" &&
    typeof v.hookId === "string" && typeof v.postbackId === "string" && typeof v.index === "number" &&
    typeof v.deadAt === "number" && typeof v.attempts === "number";
}

/** A page of dead letters, of one destination or one hook when given. */
export async function listDeadLetters(kv: Deno.Kv, options: DeadLetterQuery = {}): Promise<DeadLetterPage> {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`Cannot list dead letters: 'options' must be an object, got ${describeValue(options)}`);
  }
  onlyFields(options, ["destinationId", "hookId", "cursor", "limit", "newestFirst"], "list dead letters");
  const limit = pageLimit(options.limit, "list dead letters"); // `null` is no default: a mistake
  const { destinationId, hookId, cursor, newestFirst } = options;
  for (const [name, value] of [["destinationId", destinationId], ["hookId", hookId]] as const) {
    if (value !== undefined && (typeof value !== "string" || value === "" || value.length > MAX_ID)) {
      throw new TypeError(
        `Cannot list dead letters: '${name}' must be a non-empty string of at most ${MAX_ID} characters, got ${
          describeValue(value)
        }`,
      );
    }
  }
  if (destinationId !== undefined && hookId !== undefined) {
    throw new TypeError("Cannot list dead letters: give 'destinationId' or 'hookId', not both");
  }
  if (cursor !== undefined && typeof cursor !== "string") {
    throw new TypeError(`Cannot list dead letters: 'cursor' must be a string, got ${describeValue(cursor)}`);
  }
  if (newestFirst !== undefined && typeof newestFirst !== "boolean") {
    throw new TypeError(`Cannot list dead letters: 'newestFirst' must be a boolean, got ${describeValue(newestFirst)}`);
  }
  // A cursor is taken back only by the list that gave it (KV's own check let a made-up one or another list's through).
  const list = JSON.stringify([destinationId ?? null, hookId ?? null, newestFirst === true]);
  const kvCursor = takeCursor(cursor, list, hookId === undefined ? isIdKey : isTimeAndIdKey, "list dead letters");
  // KV writes a lone surrogate as U+FFFD, so "h\uD800" keys as "h\uFFFD": no hook or destination has such an id.
  if (!(hookId ?? destinationId ?? "").isWellFormed()) return { values: [], cursor: "" };
  if (hookId !== undefined) await indexEarlierDeadLetters(kv);
  const page = { limit, cursor: kvCursor, reverse: newestFirst === true };
  let read: { values: DeadLetter[]; cursor: string };
  if (destinationId === undefined && hookId === undefined) {
    const iter = kv.list<DeadLetter>({ prefix: DEAD_PREFIX }, page);
    const values: DeadLetter[] = [];
    for await (const entry of iter) if (isDeadLetter(entry.value)) values.push(entry.value);
    read = { values, cursor: values.length < limit ? "" : iter.cursor };
  } else {
    const prefix = hookId === undefined ? deadByDestinationPrefix(destinationId!) : deadByHookPrefix(hookId);
    read = await indexedPage(kv, kv.list({ prefix }, page), limit);
  }
  return { values: read.values, cursor: pageCursor(read.cursor, list) };
}

/** An entry id: `msg_` and a ULID (Crockford's base32). */
const ENTRY_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A key past the prefix of every dead letter's list or a destination's: `["msg_…"]`. */
function isIdKey(parts: CursorKeyPart[]): boolean {
  return parts.length === 1 && typeof parts[0] === "string" && ENTRY_ID.test(parts[0]);
}

/** A key past the prefix of a hook's list: `[deadAt, "msg_…"]`. */
function isTimeAndIdKey([deadAt, ...id]: CursorKeyPart[]): boolean {
  return typeof deadAt === "number" && Number.isSafeInteger(deadAt) && deadAt >= 0 && isIdKey(id);
}

/** The longest id that names anything here (a longer one would not fit in a KV key). */
const MAX_ID = 256;

/**
 * The dead letters that a page of an index names (the entry id last in each key), read ten to a `getMany`. A hook
 * index entry also names the death's time: one left by a letter that was sent again and died once more is skipped.
 */
async function indexedPage(kv: Deno.Kv, iter: Deno.KvListIterator<unknown>, limit: number): Promise<DeadLetterPage> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of iter) keys.push(entry.key);
  const values: DeadLetter[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    const chunk = keys.slice(i, i + 10);
    const found = await kv.getMany<DeadLetter[]>(chunk.map((key) => deadKey(key.at(-1) as string)));
    for (const [j, entry] of found.entries()) {
      const key = chunk[j];
      if (isDeadLetter(entry.value) && (key.length < 4 || entry.value.deadAt === key[2])) values.push(entry.value);
    }
  }
  return { values, cursor: keys.length < limit ? "" : iter.cursor };
}

/**
 * Gives each dead letter stored by an earlier version (which kept no hook index) its hook index entry, once per KV:
 * later dead letters get theirs in the commit that makes them. Safe to run in several processes at once (the same
 * entries set twice); a letter sent again meanwhile leaves an entry that pages skip.
 */
async function indexEarlierDeadLetters(kv: Deno.Kv): Promise<void> {
  if ((await kv.get(DEAD_BY_HOOK_READY_KEY)).versionstamp !== null) return;
  let atomic = kv.atomic();
  let count = 0;
  for await (const entry of kv.list<DeadLetter>({ prefix: DEAD_PREFIX }, { batchSize: 200 })) {
    const letter = entry.value;
    if (!isDeadLetter(letter)) continue; // edited into junk: it names no hook
    atomic.set(deadByHookKey(letter.hookId, letter.deadAt, letter.id), letter.destinationId);
    if (++count % 200 === 0) {
      await retryWhileLocked(() => atomic.commit());
      atomic = kv.atomic();
    }
  }
  await retryWhileLocked(() => atomic.set(DEAD_BY_HOOK_READY_KEY, true).commit());
}

/** One dead letter, or `null` when there is none of that id. */
export async function getDeadLetter(kv: Deno.Kv, entryId: string): Promise<DeadLetter | null> {
  if (typeof entryId !== "string" || entryId === "") {
    throw new TypeError(`Cannot get dead letter: 'entryId' must be a non-empty string, got ${describeValue(entryId)}`);
  }
  if (entryId.length > MAX_ID) return null; // no entry has such an id
  const { value } = await kv.get(deadKey(entryId));
  return isDeadLetter(value) ? value : null;
}

/** Puts a dead letter back in the outbox, due now with fresh attempts and the same id; `false` when none. */
export async function redeliver(kv: Deno.Kv, entryId: string, now: () => number): Promise<boolean> {
  if (typeof entryId !== "string" || entryId === "") {
    throw new TypeError(`Cannot redeliver: 'entryId' must be a non-empty string, got ${describeValue(entryId)}`);
  }
  if (entryId.length > MAX_ID) return false; // no entry has such an id
  while (true) {
    const dead = await kv.get<DeadLetter>(deadKey(entryId));
    if (dead.versionstamp === null) return false;
    if (!isDeadLetter(dead.value)) {
      throw new TypeError(
        `Cannot redeliver ${describeValue(entryId)}: its stored dead letter is damaged (not a letter)`,
      );
    }
    const letter = dead.value;
    const destination = await kv.get(destinationKey(letter.destinationId));
    if (destination.versionstamp === null) {
      throw new RangeError(`Cannot redeliver ${describeValue(entryId)}: its destination no longer exists`);
    }
    const entry: OutboxEntry = {
      id: letter.id,
      destinationId: letter.destinationId,
      // A damaged record (even a null) as the list shows it: its entry waits, kept, in the partition of its key's id.
      partition: readable(letter.destinationId, destination.value).pinned ? letter.destinationId : SHARED_PARTITION,
      hookId: letter.hookId,
      tenantId: letter.tenantId,
      postbackId: letter.postbackId,
      index: letter.index,
      activity: letter.activity,
      acceptedAt: letter.acceptedAt,
      attempts: 0,
    };
    const at = now();
    const atomic = kv.atomic()
      .check(dead)
      .check(destination)
      .sum(OUTBOX_BUMP_KEY, 1n) // first: see commitMending
      .delete(dead.key)
      .delete(deadByDestinationKey(letter.destinationId, letter.id))
      .delete(deadByHookKey(letter.hookId, letter.deadAt, letter.id))
      .set(dueKey(entry.partition, at, entry.id), storedOf(entry));
    setForward(atomic, entry, "pending", at);
    const result = await commitMending(kv, atomic, [OUTBOX_BUMP_KEY]);
    if (result.ok) return true;
  }
}
