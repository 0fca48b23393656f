// How a held entry ends its turn, as a `Finish` for the finish queue: the
// attempt record, then delivered (gone), rescheduled (a new due key), dead
// (a dead letter), given back (due now, no attempt) or dropped (its
// destination is gone).

import { monotonicFactory } from "ulid";
import type { Outcome } from "./_deliver.ts";
import type { OutboxEntry } from "./_entry.ts";
import { deleteForward, setForward } from "./_forwards.ts";
import { attemptKey, deadByDestinationKey, deadKey, dueKey } from "./_keys.ts";
import { ATTEMPT_TTL_MS, type Finish, type Held } from "./_outbox.ts";
import type { DeadLetter, RelayAttempt } from "./_types.ts";

const ulid = monotonicFactory();

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

function unleased(entry: OutboxEntry): OutboxEntry {
  const { lease: _lease, ...rest } = entry;
  return rest;
}

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

/** Builds the finishes of one worker. */
export function finishes(now: () => number): {
  delivered(held: Held, outcome: Outcome): Finish;
  retry(held: Held, outcome: Outcome, dueAt: number): Finish;
  dead(held: Held, outcome: Outcome | null, reason: string): Finish;
  giveBack(held: Held): Finish;
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
      apply: (atomic) => {
        atomic.set(record[0], record[1], { expireIn: ATTEMPT_TTL_MS });
        rest(atomic);
      },
    };
  }
  return {
    delivered: (held, outcome) =>
      withAttempt(held, outcome, (atomic) => {
        setForward(atomic, { ...held.entry, attempts: held.entry.attempts + 1 }, "delivered", null);
      }),
    retry: (held, outcome, dueAt) => {
      const next: OutboxEntry = { ...unleased(held.entry), attempts: held.entry.attempts + 1 };
      next.lastError = reasonOf(outcome);
      return {
        ...withAttempt(held, outcome, (atomic) => {
          atomic.set(dueKey(next.partition, dueAt, next.id), next);
          setForward(atomic, next, "pending", dueAt);
        }),
        bump: true,
      };
    },
    dead: (held, outcome, reason) => {
      const attempts = held.entry.attempts + (outcome ? 1 : 0);
      const letter = deadLetterOf({ ...held.entry, attempts }, now(), reason);
      const add = (atomic: Deno.AtomicOperation): void => {
        atomic.set(deadKey(letter.id), letter).set(deadByDestinationKey(letter.destinationId, letter.id), null);
        setForward(atomic, letter, "dead", null);
      };
      return outcome ? withAttempt(held, outcome, add) : { held, apply: add };
    },
    giveBack: (held) => ({
      held,
      bump: true,
      apply: (atomic) => {
        const entry = unleased(held.entry);
        atomic.set(dueKey(entry.partition, now(), entry.id), entry);
      },
    }),
    drop: (held) => ({ held, apply: (atomic) => deleteForward(atomic, held.entry) }),
  };
}
