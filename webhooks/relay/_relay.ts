// `createRelay`: the destinations, the outbox writer and the workers of one KV.

import { DestinationCache } from "./_cache.ts";
import { getDeadLetter, listAttempts, listDeadLetters, redeliver } from "./_dead.ts";
import { HostGuard } from "./_deliver.ts";
import { createDestinations } from "./_destinations.ts";
import { entryState, listForwards } from "./_forwards.ts";
import { describe as describeValue } from "../_util.ts";
import { resolveOptions, resolveRun } from "./_options.ts";
import { createWrite } from "./_outbox.ts";
import type { Relay, RelayOptions, RelayWorker, RunOptions } from "./_types.ts";
import { startWorker } from "./_worker.ts";
import { PinMarks } from "./pins/mod.ts";

/** The longest postback id `forwards` looks up. */
const MAX_POSTBACK_ID = 256;

/**
 * Creates a relay that forwards what a receiver accepted to HTTP
 * destinations, signed with Standard Webhooks, with retries and dead
 * letters, on a local KV or over KV Connect.
 *
 * @param kv The KV of the receiver (`write` adds to its commits).
 * @param options `schedule`, `attemptTimeoutMs`, `leaseMs`, `allowPrivateNetwork`, `fetch`, `now`, `pollMs`.
 * @returns The relay.
 * @throws {TypeError} When `kv` is not a KV, an option has the wrong type, or is not one of these (a misspelling).
 * @throws {RangeError} When an option is out of range.
 *
 * @example Forwarding to an app
 * ```ts
 * import { createRelay } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const relay = createRelay(kv, { allowPrivateNetwork: true });
 * const destination = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
 * assert.match(destination.secret, /^whsec_/);
 * assert.equal((await relay.destinations.list())[0].id, destination.id);
 * await relay.close();
 * kv.close();
 * ```
 */
export function createRelay(kv: Deno.Kv, options?: RelayOptions): Relay {
  if (kv === null || typeof kv !== "object" || typeof (kv as Deno.Kv).atomic !== "function") {
    throw new TypeError(`Cannot create relay: 'kv' must be a Deno.Kv, got ${describeValue(kv)}`);
  }
  const resolved = resolveOptions(options);
  const cache = new DestinationCache(kv);
  // A change made here is in this process's list once it resolves: write then forwards to it at once.
  const destinations = createDestinations(kv, resolved, async () => {
    cache.invalidate();
    await cache.load();
  }, () => cache.listed());
  const guard = new HostGuard();
  const pins = new PinMarks(kv, resolved.now);
  const workers = new Set<RelayWorker>();
  return {
    destinations,
    write: createWrite(cache, resolved.now),
    run(runOptions?: RunOptions): RelayWorker {
      const run = resolveRun(runOptions);
      const worker = startWorker({ kv, cache, destinations, options: resolved, guard, pins }, run, () => {
        workers.delete(worker);
      });
      workers.add(worker);
      return worker;
    },
    attempts: (entryId) => listAttempts(kv, entryId),
    forwards(postbackId: string, index?: number) {
      if (typeof postbackId !== "string" || postbackId === "") {
        const got = describeValue(postbackId);
        return Promise.reject(
          new TypeError(`Cannot list forwards: 'postbackId' must be a non-empty string, got ${got}`),
        );
      }
      if (index !== undefined && (!Number.isInteger(index) || index < 0)) {
        const got = describeValue(index);
        return Promise.reject(
          new RangeError(`Cannot list forwards: 'index' must be an integer of 0 or more, got ${got}`),
        );
      }
      // No postback has such an id (a receiver's are 64 characters), and it would not fit in a KV key.
      if (postbackId.length > MAX_POSTBACK_ID) return Promise.resolve([]);
      // `+ 0` makes -0 the 0 it stands for: KV keeps the keys 0 and -0 apart (item 0's forwards were not found).
      return listForwards(kv, postbackId, index === undefined ? undefined : index + 0);
    },
    deadLetters: (page) => listDeadLetters(kv, page),
    deadLetter: (entryId) => getDeadLetter(kv, entryId),
    entryState: (entryId) => entryState(kv, entryId),
    redeliver: (entryId) => redeliver(kv, entryId, resolved.now),
    async close(): Promise<void> {
      await Promise.all([...workers].map((w) => w.stop()));
      await cache.settle();
    },
  };
}
