/**
 * The public types of {@linkcode createRelay}.
 *
 * @module
 */

import type { Postback } from "../receiver/mod.ts";
import type { RelayForward } from "./_forwards.ts";
import type { Destinations } from "./_destination_types.ts";

export type * from "./_destination_types.ts";

/**
 * One attempt to deliver an entry.
 *
 * @example Usage
 * ```ts
 * import type { RelayAttempt } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const attempt: RelayAttempt = { time: 0, status: 0, durationMs: 15000, error: "No answer within 15 s", response: "" };
 * assert.equal(attempt.status, 0); // no answer
 * ```
 */
export interface RelayAttempt {
  /** When it started (the relay's `now()`, ms). */
  time: number;
  /** The answer's HTTP status; 0 when there was none. */
  status: number;
  /** Milliseconds from the request to the answer (or the failure). */
  durationMs: number;
  /** Why it failed, when there was no answer; or, beside a status, why the answer's body is cut short. */
  error?: string;
  /** The first 1 KiB of the answer's body, as text. */
  response: string;
}

/**
 * An entry that ran out of attempts (or whose destination answered `410` to
 * it). The entries of a disabled destination are kept, not dead letters.
 *
 * @example Usage
 * ```ts
 * import type { DeadLetter } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const dead: DeadLetter = {
 *   id: "msg_1", destinationId: "d1", hookId: "h1", tenantId: "t1", postbackId: "p", index: 0,
 *   activity: { verb: "jive:created" }, acceptedAt: 0, attempts: 8, deadAt: 0, reason: "500",
 * };
 * assert.equal(dead.attempts, 8);
 * ```
 */
export interface DeadLetter {
  /** The entry's id, its `webhook-id`. */
  id: string;
  /** Where it was going. */
  destinationId: string;
  /** The hook it came from. */
  hookId: string;
  /** The hook's tenant. */
  tenantId: string;
  /** The postback's id and the item's place in it. */
  postbackId: string;
  /** The item's place in the postback. */
  index: number;
  /** The item's activity. */
  activity: Record<string, unknown>;
  /** When the receiver accepted it (ms). */
  acceptedAt: number;
  /** Attempts made. */
  attempts: number;
  /** When it became a dead letter (ms). */
  deadAt: number;
  /** Why: the last attempt's status or error. */
  reason: string;
}

/**
 * A page of dead letters.
 *
 * @example Usage
 * ```ts
 * import type { DeadLetterPage } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const page: DeadLetterPage = { values: [], cursor: "" };
 * assert.equal(page.cursor, ""); // the last page
 * ```
 */
export interface DeadLetterPage {
  /** The dead letters, oldest first. */
  values: DeadLetter[];
  /** Pass it back for the next page; `""` on the last. */
  cursor: string;
}

/**
 * What `relay.deadLetters` takes: whose dead letters, and which page.
 *
 * @example Usage
 * ```ts
 * import type { DeadLetterQuery } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const query: DeadLetterQuery = { hookId: "h1", newestFirst: true, limit: 50 };
 * assert.equal(query.cursor, undefined); // the first page
 * ```
 */
export interface DeadLetterQuery {
  /** Only the dead letters of this destination, by entry id. */
  destinationId?: string;
  /** Only the dead letters of this hook, in the order they died (not with `destinationId`); none for an id with a lone surrogate. */
  hookId?: string;
  /** The `cursor` of the page before (of this same list); absent or `""` for the first; any other is a `TypeError`. */
  cursor?: string;
  /** Dead letters a page (default 100, at most 1,000). */
  limit?: number;
  /** Newest first (the last one first) rather than oldest first. */
  newestFirst?: boolean;
}

/**
 * Options of `relay.run`.
 *
 * @example Usage
 * ```ts
 * import type { RunOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: RunOptions = { concurrency: 4 };
 * assert.equal(options.destinations, undefined); // every unpinned destination
 * ```
 */
export interface RunOptions {
  /** Stops the worker when aborted. */
  signal?: AbortSignal;
  /** Attempts in flight at once (default 16, at most 1000). */
  concurrency?: number;
  /** Only these destinations (and, of these, the pinned ones too); at least one (an empty list is a `RangeError`). */
  destinations?: string[];
  /** Called after each attempt (for a printout such as `listen`'s). */
  onAttempt?: (attempt: RelayAttempt & { entryId: string; destinationId: string; hookId: string }) => void;
}

/**
 * A running worker.
 *
 * @example Usage
 * ```ts
 * import { createRelay } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const relay = createRelay(kv);
 * const worker = relay.run();
 * await worker.stop();
 * assert.ok(true);
 * await relay.close();
 * kv.close();
 * ```
 */
export interface RelayWorker {
  /** Stops taking entries, gives back those in flight (not counted as attempts) and resolves when done. */
  stop(): Promise<void>;
}

/**
 * Options of {@linkcode createRelay}.
 *
 * @example Usage
 * ```ts
 * import type { RelayOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: RelayOptions = { attemptTimeoutMs: 5_000, allowPrivateNetwork: true };
 * assert.equal(options.leaseMs, undefined); // 30 s
 * ```
 */
export interface RelayOptions {
  /** Waits after each failed attempt, ms (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); then a dead letter. */
  schedule?: number[];
  /** Time for one attempt, answer and its first 1 KiB included (default 15,000 ms). */
  attemptTimeoutMs?: number;
  /** How long a worker holds an entry it took (default 30,000 ms; more than `attemptTimeoutMs`). */
  leaseMs?: number;
  /** Allow loopback, private and link-local destination hosts (default `false`). */
  allowPrivateNetwork?: boolean;
  /** The fetch to call destinations with (for tests; default the global `fetch`). */
  fetch?: typeof fetch;
  /** The clock, ms (for tests; default `Date.now`). */
  now?: () => number;
  /**
   * Longest sleep of an idle worker between looks at the outbox (default
   * 1,000 ms). A worker wakes at once on entries added through the same KV
   * Connect server or in its own process; on a local KV file, another
   * process's commits reach it by this look.
   */
  pollMs?: number;
}

/**
 * A relay: destinations, the outbox writer and workers.
 *
 * @example Usage
 * ```ts
 * import { createRelay } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const relay = createRelay(kv);
 * assert.deepEqual(await relay.destinations.list(), []);
 * await relay.close();
 * kv.close();
 * ```
 */
export interface Relay {
  /** The destinations, in KV. */
  destinations: Destinations;
  /**
   * Adds one outbox entry per enabled destination that matches
   * `postback.webhook.id` to `atomic` (the claim's commit). Synchronous:
   * usable as a receiver's `write`, or inside one.
   */
  write: (postback: Postback, atomic: Deno.AtomicOperation) => void;
  /** Starts a worker. Options that are not an object, or a field it does not take, are a `TypeError`. */
  run(options?: RunOptions): RelayWorker;
  /** The attempts of one entry, oldest first. */
  attempts(entryId: string): Promise<RelayAttempt[]>;
  /**
   * Every forward of a postback (of its item `index` when given), by item
   * then entry id: each entry's destination, state, attempts and next
   * attempt time, kept 30 days. All of them, not a page: a postback holds
   * at most 100 items, one forward per item and destination. Throws a `TypeError` for an empty `postbackId`, a `RangeError`
   * for a bad `index`.
   */
  forwards(postbackId: string, index?: number): Promise<RelayForward[]>;
  /**
   * A page of dead letters (`limit`, default 100, at most 1,000; `cursor` from the page before): of one
   * destination, or of one hook (`hookId`, in the order they died), or every one. `newestFirst` reverses the
   * order. Giving both `destinationId` and `hookId`, or a field it does not take, is a `TypeError`.
   */
  deadLetters(options?: DeadLetterQuery): Promise<DeadLetterPage>;
  /** One dead letter by its entry id, or `null` when there is none (sent again, or never one). */
  deadLetter(entryId: string): Promise<DeadLetter | null>;
  /**
   * Where entry `entryId` stands now: `"waiting"` in the outbox (untried, due again, or held by a worker), `"paused"`
   * (kept untried while its destination is disabled), `"dead"` (a dead letter), or `null` (delivered, gone with its
   * destination, or never an entry). It reads the outbox through: for an operator's question, not a hot path.
   */
  entryState(entryId: string): Promise<"waiting" | "paused" | "dead" | null>;
  /** Puts a dead letter back in the outbox with fresh attempts; `false` when there is no such dead letter. */
  redeliver(entryId: string): Promise<boolean>;
  /** Stops every worker of this relay and waits for its background reads. */
  close(): Promise<void>;
}
