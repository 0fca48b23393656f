// How a held entry ends its turn, as a `Finish`: the attempt record, then
// delivered (gone), rescheduled (a new due key), dead (a dead letter), given
// back (due now, no attempt) or dropped (its destination is gone); and the
// queue that commits finishes in groups.

import { commitMending } from "./counters/mod.ts";
import type { Outcome } from "./_deliver.ts";
import { type OutboxEntry, storedOf } from "./_entry.ts";
import { deleteForward, setForward } from "./_forwards.ts";
import { retryWhileLocked } from "../kv/mod.ts";
import { removedState } from "./removal/mod.ts";
import {
  attemptKey,
  deadByDestinationKey,
  deadByHookKey,
  deadKey,
  dueKey,
  OUTBOX_BUMP_KEY,
  pausedKey,
  removedKey,
  ulid,
} from "./_keys.ts";
import { type Held, MAX_CHECKS } from "./_outbox.ts";
import type { DeadLetter, RelayAttempt } from "./_types.ts";

/** The record of an attempt. */
export function attemptRecord(outcome: Outcome): RelayAttempt {
  const record: RelayAttempt = {
    time: outcome.time,
    status: outcome.status,
    durationMs: outcome.durationMs,
    response: outcome.response,
  };
  if (outcome.error !== undefined) record.error = outcome.error;
  return record;
}

/** The short reason of a failed attempt. */
export function reasonOf(outcome: Outcome): string {
  return outcome.status === 0 ? outcome.error ?? "No answer" : `HTTP ${outcome.status}`;
}

const unleased = ({ lease: _lease, ...rest }: OutboxEntry): OutboxEntry => rest;

/** The dead letter of an entry. */
export function deadLetterOf(entry: OutboxEntry, deadAt: number, reason: string): DeadLetter {
  return {
    id: entry.id,
    destinationId: entry.destinationId,
    hookId: entry.hookId,
    tenantId: entry.tenantId,
    postbackId: entry.postbackId,
    index: entry.index,
    activity: entry.activity,
    acceptedAt: entry.acceptedAt,
    attempts: entry.attempts,
    deadAt,
    reason,
  };
}

/** What a finish that writes a copy of the entry (rescheduled, dead, given back) writes, about. */
function copyBytes(held: Held): number {
  return 2 * held.body.length + RECORDS_BYTES;
}

/** Builds the finishes of one worker. */
export function finishes(now: () => number): {
  delivered(held: Held, outcome: Outcome): Finish;
  retry(held: Held, outcome: Outcome, dueAt: number): Finish;
  dead(held: Held, outcome: Outcome | null, reason: string): Finish;
  giveBack(held: Held): Finish;
  park(held: Held, destination: Deno.KvEntry<unknown>): Finish;
  drop(held: Held): Finish;
} {
  function attempt(held: Held, outcome: Outcome): [Deno.KvKey, unknown] {
    return [attemptKey(held.entry.id, ulid()), attemptRecord(outcome)];
  }
  function withAttempt(held: Held, outcome: Outcome, rest: (atomic: Deno.AtomicOperation) => void): Finish {
    const record = attempt(held, outcome);
    return {
      held,
      attempt: record,
      bytes: RECORDS_BYTES,
      apply: (atomic) => {
        atomic.set(record[0], record[1], { expireIn: ATTEMPT_TTL_MS });
        rest(atomic);
      },
    };
  }
  return {
    delivered: (held, outcome) => ({
      ...withAttempt(held, outcome, (atomic) => {
        setForward(atomic, { ...held.entry, attempts: held.entry.attempts + 1 }, "delivered", null);
      }),
      unchecked: true,
    }),
    retry: (held, outcome, dueAt) => {
      const next: OutboxEntry = { ...unleased(held.entry), attempts: held.entry.attempts + 1 };
      next.lastError = reasonOf(outcome);
      return {
        // Refused once its destination is removed: landing behind the removal's listing, it was left to no one.
        ...withAttempt(held, outcome, (atomic) => {
          atomic.check({ key: removedKey(next.destinationId), versionstamp: null });
          atomic.set(dueKey(next.partition, dueAt, next.id), storedOf(next));
          setForward(atomic, next, "pending", dueAt);
        }),
        checks: 1,
        bump: true,
        bytes: copyBytes(held),
        // No worker will deliver it: gone at once with its state, the attempt kept (not left leased till its end).
        ifRemoved: withAttempt(held, outcome, (atomic) => deleteForward(atomic, held.entry)),
      };
    },
    dead: (held, outcome, reason) => {
      const attempts = held.entry.attempts + (outcome ? 1 : 0);
      const letter = deadLetterOf({ ...held.entry, attempts }, now(), reason);
      // Refused once its destination is removed, as a retry is: no dead letter of it is written after its removal's
      // commit, so a finished removal leaves none for housekeeping to look for.
      const add = (atomic: Deno.AtomicOperation): void => {
        atomic.check({ key: removedKey(letter.destinationId), versionstamp: null });
        atomic.set(deadKey(letter.id), letter).set(deadByDestinationKey(letter.destinationId, letter.id), null)
          .set(deadByHookKey(letter.hookId, letter.deadAt, letter.id), letter.destinationId);
        setForward(atomic, letter, "dead", null);
      };
      const gone = (atomic: Deno.AtomicOperation): void => deleteForward(atomic, held.entry);
      return {
        ...(outcome ? withAttempt(held, outcome, add) : { held, apply: add }),
        checks: 1,
        bytes: copyBytes(held),
        ifRemoved: outcome ? withAttempt(held, outcome, gone) : { held, bytes: RECORDS_BYTES, apply: gone },
      };
    },
    giveBack: (held) => ({
      held,
      bump: true,
      bytes: copyBytes(held),
      apply: (atomic) => {
        const entry = unleased(held.entry);
        atomic.set(dueKey(entry.partition, now(), entry.id), storedOf(entry));
      },
    }),
    // Kept, untried, while its destination is disabled; only while the destination is as read (still disabled):
    // an enable that came between moves the kept entries back, and this one is then given back instead.
    park: (held, destination) => ({
      held,
      checks: 1,
      bytes: copyBytes(held),
      apply: (atomic) => {
        const entry = unleased(held.entry);
        atomic.check(destination).set(pausedKey(entry.destinationId, entry.id), entry);
        setForward(atomic, entry, "pending", null);
      },
    }),
    drop: (held) => ({
      held,
      unchecked: true,
      bytes: RECORDS_BYTES,
      apply: (atomic) => deleteForward(atomic, held.entry),
    }),
  };
}

/** How an entry held by this worker ends its turn. */
export interface Finish {
  held: Held;
  /** Adds what follows the check and the delete of the held key (an attempt, a new due key, a dead letter). */
  apply(atomic: Deno.AtomicOperation): void;
  /** The attempt record, kept even when the lease was lost (the attempt happened). */
  attempt?: [Deno.KvKey, unknown];
  /** Checks that `apply` adds besides the held key's. */
  checks?: number;
  /** Bump the outbox counter (the entry is due again soon). */
  bump?: boolean;
  /**
   * Commit without checking the held key (a delivery, a drop): such a finish only deletes its held key and
   * records, so a lease lost meanwhile costs at most the copy already sent, and a group holds many of them.
   */
  unchecked?: boolean;
  /** What commits instead when this one was refused because the entry's destination was removed (a retry, a death). */
  ifRemoved?: Finish;
  /** Set by the queue once this finish itself (not its `ifRemoved`) committed: a death's dead letter is written. */
  committed?: boolean;
  /** About how many bytes it writes (a copy of the entry weighs its body twice; records a few KiB). */
  bytes: number;
}

interface Queued {
  finish: Finish;
  resolve: (ok: boolean) => void;
  reject: (error: unknown) => void;
}

/** Finishes in one commit at most: each adds up to six mutations, well within a commit's 1,000. */
const MAX_GROUP = 64;
/** Bytes written by one commit at most (estimated; a commit takes 819,200 with keys counted twice). */
const MAX_GROUP_BYTES = 400_000;
/** What a finish without a copy of the entry writes at most: the attempt (1 KiB of answer) and the state. */
const RECORDS_BYTES = 4_096;

/** Group commits under way at once: a finish waits for a free one, not for the commit before it to return. */
const RUNNERS = 2;

/**
 * Commits finishes in groups: while commits run, the next ones gather, up
 * to ten checked ones (KV Connect's checks) and {@linkcode MAX_GROUP} in all
 * to a commit; {@linkcode RUNNERS} commits may be under way at once (each
 * finish is the only one of its entry, so they never touch the same keys).
 * When a group fails on one member's check (a lease lost to another
 * worker), each member is committed on its own.
 */
export class FinishQueue {
  #kv: Deno.Kv;
  #queue: Queued[] = [];
  // Counted up and down synchronously (not in a later `finally` reaction), so that a finish pushed just as a
  // runner ends is never left waiting for the next push.
  #runners = 0;
  #running = new Set<Promise<void>>();

  /** @param kv the relay's KV */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Resolves `true` when committed, `false` when the lease was lost. */
  push(finish: Finish): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ finish, resolve, reject });
      if (this.#runners < RUNNERS) {
        this.#runners++;
        const running: Promise<void> = this.#run().finally(() => this.#running.delete(running));
        this.#running.add(running);
      }
    });
  }

  /** Resolves when every queued finish is committed. */
  async drain(): Promise<void> {
    while (this.#runners > 0) await Promise.all(this.#running);
  }

  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        let checks = 0;
        let size = 0;
        let bytes = 0;
        while (size < this.#queue.length && size < MAX_GROUP) {
          const next = this.#queue[size].finish;
          if (size > 0 && bytes + next.bytes > MAX_GROUP_BYTES) break;
          const needs = (next.unchecked ? 0 : 1) + (next.checks ?? 0);
          if (size > 0 && checks + needs > MAX_CHECKS) break;
          checks += needs;
          bytes += next.bytes;
          size++;
        }
        const batch = this.#queue.splice(0, size);
        try {
          if (batch.length > 1 && await this.#commit(batch.map((q) => q.finish))) {
            for (const q of batch) q.resolve(q.finish.committed = true);
            continue;
          }
          for (const q of batch) {
            let ok = q.finish.committed = await this.#commit([q.finish]);
            const instead = q.finish.ifRemoved;
            if (!ok && instead) {
              const state = await removedState(this.#kv, q.finish.held.entry.destinationId);
              if (state !== "live") ok = await this.#commit([state === "removed" ? instead : q.finish]);
            }
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
      this.#runners--;
    }
  }

  async #commit(finishes: Finish[]): Promise<boolean> {
    const atomic = this.#kv.atomic();
    if (finishes.some((f) => f.bump === true)) atomic.sum(OUTBOX_BUMP_KEY, 1n); // first: see commitMending
    for (const f of finishes) {
      if (!f.unchecked) atomic.check({ key: f.held.key, versionstamp: f.held.versionstamp });
      atomic.delete(f.held.key);
      f.apply(atomic);
    }
    return (await commitMending(this.#kv, atomic, [OUTBOX_BUMP_KEY])).ok;
  }
}

/** How long attempt records are kept: 30 days. */
export const ATTEMPT_TTL_MS = 30 * 86_400_000;
