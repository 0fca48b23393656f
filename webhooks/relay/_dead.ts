// Reading what happened: the attempts of an entry, the dead letters, and
// sending a dead letter again.

import { retryWhileLocked } from "../kv/mod.ts";
import { type OutboxEntry, storedOf } from "./_entry.ts";
import { setForward } from "./_forwards.ts";
import {
  attemptPrefix,
  DEAD_PREFIX,
  deadByDestinationKey,
  deadByDestinationPrefix,
  deadKey,
  destinationKey,
  dueKey,
  OUTBOX_BUMP_KEY,
  SHARED_PARTITION,
} from "./_keys.ts";
import { describeValue } from "./_options.ts";
import type { StoredDestination } from "./_destinations.ts";
import type { DeadLetter, DeadLetterPage, RelayAttempt } from "./_types.ts";

/** The attempts of one entry, oldest first. */
export async function listAttempts(kv: Deno.Kv, entryId: string): Promise<RelayAttempt[]> {
  if (typeof entryId !== "string" || entryId === "") {
    throw new TypeError(`Cannot list attempts: 'entryId' must be a non-empty string, got ${describeValue(entryId)}`);
  }
  const out: RelayAttempt[] = [];
  for await (const entry of kv.list<RelayAttempt>({ prefix: attemptPrefix(entryId) })) out.push(entry.value);
  return out;
}

/** A page of dead letters, of one destination when given. */
export async function listDeadLetters(
  kv: Deno.Kv,
  options: { destinationId?: string; cursor?: string; limit?: number } = {},
): Promise<DeadLetterPage> {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`Cannot list dead letters: 'options' must be an object, got ${describeValue(options)}`);
  }
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new RangeError(`Cannot list dead letters: 'limit' must be an integer from 1 to 1000, got ${limit}`);
  }
  const { destinationId, cursor } = options;
  if (destinationId !== undefined && (typeof destinationId !== "string" || destinationId === "")) {
    throw new TypeError(
      `Cannot list dead letters: 'destinationId' must be a non-empty string, got ${describeValue(destinationId)}`,
    );
  }
  if (cursor !== undefined && typeof cursor !== "string") {
    throw new TypeError(`Cannot list dead letters: 'cursor' must be a string, got ${describeValue(cursor)}`);
  }
  try {
    return await deadLetterPage(kv, limit, destinationId, cursor);
  } catch (error) {
    // KV's own "invalid cursor" names neither the argument nor where a good one comes from.
    if (!cursor || !(error instanceof TypeError) || !/cursor/i.test(error.message)) throw error;
    throw new TypeError(
      `Cannot list dead letters: 'cursor' must be one that a page of this list gave, got ${describeValue(cursor)}`,
    );
  }
}

async function deadLetterPage(
  kv: Deno.Kv,
  limit: number,
  destinationId: string | undefined,
  cursor: string | undefined,
): Promise<DeadLetterPage> {
  if (destinationId === undefined) {
    const iter = kv.list<DeadLetter>({ prefix: DEAD_PREFIX }, { limit, cursor: cursor || undefined });
    const values: DeadLetter[] = [];
    for await (const entry of iter) values.push(entry.value);
    return { values, cursor: values.length < limit ? "" : iter.cursor };
  }
  const iter = kv.list({ prefix: deadByDestinationPrefix(destinationId) }, { limit, cursor: cursor || undefined });
  const ids: string[] = [];
  for await (const entry of iter) ids.push(entry.key[2] as string);
  const values: DeadLetter[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    const found = await kv.getMany<DeadLetter[]>(ids.slice(i, i + 10).map(deadKey));
    for (const entry of found) if (entry.value) values.push(entry.value);
  }
  return { values, cursor: ids.length < limit ? "" : iter.cursor };
}

/** Puts a dead letter back in the outbox, due now with fresh attempts and the same id; `false` when none. */
export async function redeliver(kv: Deno.Kv, entryId: string, now: () => number): Promise<boolean> {
  if (typeof entryId !== "string" || entryId === "") {
    throw new TypeError(`Cannot redeliver: 'entryId' must be a non-empty string, got ${describeValue(entryId)}`);
  }
  while (true) {
    const dead = await kv.get<DeadLetter>(deadKey(entryId));
    if (dead.value === null) return false;
    const letter = dead.value;
    const destination = await kv.get<StoredDestination>(destinationKey(letter.destinationId));
    if (destination.value === null) {
      throw new RangeError(`Cannot redeliver ${describeValue(entryId)}: its destination no longer exists`);
    }
    const entry: OutboxEntry = {
      id: letter.id,
      destinationId: letter.destinationId,
      partition: destination.value.pinned ? destination.value.id : SHARED_PARTITION,
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
      .delete(dead.key)
      .delete(deadByDestinationKey(letter.destinationId, letter.id))
      .set(dueKey(entry.partition, at, entry.id), storedOf(entry))
      .sum(OUTBOX_BUMP_KEY, 1n);
    setForward(atomic, entry, "pending", at);
    const result = await retryWhileLocked(() => atomic.commit());
    if (result.ok) return true;
  }
}
