// The outbox's commits: `write` (into the claim's commit), turning fan-out
// records into entries, taking entries under a lease, and finishing them
// (delivered, rescheduled, dead, given back), several to a commit within
// KV Connect's ten checks.

import { retryWhileLocked } from "../kv/mod.ts";
import type { Postback } from "../receiver/mod.ts";
import { type DestinationCache, matches } from "./_cache.ts";
import { entryFor, type FanoutRecord, itemOf, newEntryId, type OutboxEntry } from "./_entry.ts";
import { deleteForward, setForward } from "./_forwards.ts";
import { dueKey, FANOUT_PREFIX, fanoutKey, OUTBOX_BUMP_KEY } from "./_keys.ts";

/** Checks per atomic operation: KV Connect's limit. */
export const MAX_CHECKS = 10;

/** An entry held by this worker: the key it sits at under its lease, and that key's versionstamp. */
export interface Held {
  entry: OutboxEntry;
  key: Deno.KvKey;
  versionstamp: string;
}

/** `relay.write`: one entry per enabled matching destination, or a fan-out record while the list is not fresh. */
export function createWrite(
  cache: DestinationCache,
  now: () => number,
): (postback: Postback, atomic: Deno.AtomicOperation) => void {
  return (postback: Postback, atomic: Deno.AtomicOperation): void => {
    if (typeof postback?.webhook?.id !== "string" || typeof postback.postbackId !== "string") {
      throw new TypeError("Cannot write to the relay: 'postback' must be a postback of a receiver");
    }
    const item = itemOf(postback);
    if (!cache.fresh()) {
      const id = newEntryId();
      const writtenAt = now();
      atomic.set(fanoutKey(id), { ...item, id, writtenAt } satisfies FanoutRecord);
      setForward(atomic, { ...item, id, destinationId: null, attempts: 0 }, "pending", writtenAt);
      atomic.sum(OUTBOX_BUMP_KEY, 1n);
      return;
    }
    const at = now();
    let added = false;
    for (const destination of cache.all()) {
      if (!matches(destination, item.hookId)) continue;
      const entry = entryFor(item, destination);
      atomic.set(dueKey(entry.partition, at, entry.id), entry);
      setForward(atomic, entry, "pending", at);
      added = true;
    }
    if (added) atomic.sum(OUTBOX_BUMP_KEY, 1n);
  };
}

/**
 * Turns waiting fan-out records into entries with the current list, each
 * record in one commit (its check, its delete, its entries). Resolves with
 * how many were turned.
 */
export async function expandFanouts(kv: Deno.Kv, cache: DestinationCache, now: () => number): Promise<number> {
  const records: Deno.KvEntry<FanoutRecord>[] = [];
  for await (const entry of kv.list<FanoutRecord>({ prefix: FANOUT_PREFIX }, { limit: 50 })) records.push(entry);
  if (records.length === 0) return 0;
  if (!cache.fresh()) await cache.load();
  let turned = 0;
  for (const record of records) {
    const { id: _id, writtenAt, ...item } = record.value;
    const atomic = kv.atomic().check(record).delete(record.key).sum(OUTBOX_BUMP_KEY, 1n);
    deleteForward(atomic, record.value);
    const at = now();
    for (const destination of cache.all()) {
      if (!matches(destination, item.hookId) || destination.createdAt > writtenAt) continue;
      const entry = entryFor(item, destination);
      atomic.set(dueKey(entry.partition, at, entry.id), entry);
      setForward(atomic, entry, "pending", at);
    }
    if ((await retryWhileLocked(() => atomic.commit())).ok) turned++;
  }
  return turned;
}

/** Takes `candidates` under a lease until `until`, ten to a commit; resolves with those this worker got. */
export async function take(
  kv: Deno.Kv,
  candidates: Deno.KvEntry<OutboxEntry>[],
  owner: string,
  until: number,
): Promise<Held[]> {
  const held: Held[] = [];
  for (let i = 0; i < candidates.length; i += MAX_CHECKS) {
    let batch = candidates.slice(i, i + MAX_CHECKS);
    for (let round = 0; round < 2 && batch.length > 0; round++) {
      const atomic = kv.atomic();
      const moved = batch.map((c) => {
        const entry: OutboxEntry = { ...c.value, lease: { owner, until } };
        const key = dueKey(entry.partition, until, entry.id);
        atomic.check(c).delete(c.key).set(key, entry);
        return { entry, key };
      });
      const result = await retryWhileLocked(() => atomic.commit());
      if (result.ok) {
        for (const m of moved) held.push({ ...m, versionstamp: result.versionstamp });
        break;
      }
      // Another worker took some: keep those still where they were listed, and try once more.
      const now = await kv.getMany<OutboxEntry[]>(batch.map((c) => c.key));
      batch = batch.filter((c, j) => now[j].versionstamp === c.versionstamp);
    }
  }
  return held;
}

/** How an entry held by this worker ends its turn. */
export interface Finish {
  held: Held;
  /** Adds what follows the check and the delete of the held key (an attempt, a new due key, a dead letter). */
  apply(atomic: Deno.AtomicOperation): void;
  /** The attempt record, kept even when the lease was lost (the attempt happened). */
  attempt?: [Deno.KvKey, unknown];
  /** Bump the outbox counter (the entry is due again soon). */
  bump?: boolean;
}

interface Queued {
  finish: Finish;
  resolve: (ok: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Commits finishes in groups: while a commit runs, the next ones gather,
 * up to ten (checks) to a commit. When a group fails on one member's check
 * (a lease lost to another worker), each member is committed on its own.
 */
export class FinishQueue {
  #kv: Deno.Kv;
  #queue: Queued[] = [];
  // Set and cleared synchronously (not in a later `finally` reaction), so that a finish pushed just as the
  // loop ends is never left waiting for the next push.
  #active = false;
  #running: Promise<void> = Promise.resolve();

  /** @param kv the relay's KV */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Resolves `true` when committed, `false` when the lease was lost. */
  push(finish: Finish): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ finish, resolve, reject });
      if (!this.#active) {
        this.#active = true;
        this.#running = this.#run();
      }
    });
  }

  /** Resolves when every queued finish is committed. */
  async drain(): Promise<void> {
    while (this.#active) await this.#running;
  }

  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_CHECKS);
        try {
          if (batch.length > 1 && await this.#commit(batch.map((q) => q.finish))) {
            for (const q of batch) q.resolve(true);
            continue;
          }
          for (const q of batch) {
            const ok = await this.#commit([q.finish]);
            if (!ok && q.finish.attempt) {
              const [key, value] = q.finish.attempt;
              await retryWhileLocked(() => this.#kv.set(key, value, { expireIn: ATTEMPT_TTL_MS }));
            }
            q.resolve(ok);
          }
        } catch (error) {
          for (const q of batch) q.reject(error);
        }
      }
    } finally {
      this.#active = false;
    }
  }

  async #commit(finishes: Finish[]): Promise<boolean> {
    const atomic = this.#kv.atomic();
    let bump = false;
    for (const f of finishes) {
      atomic.check({ key: f.held.key, versionstamp: f.held.versionstamp }).delete(f.held.key);
      f.apply(atomic);
      bump ||= f.bump === true;
    }
    if (bump) atomic.sum(OUTBOX_BUMP_KEY, 1n);
    return (await retryWhileLocked(() => atomic.commit())).ok;
  }
}

/** How long attempt records are kept: 30 days. */
export const ATTEMPT_TTL_MS = 30 * 86_400_000;
