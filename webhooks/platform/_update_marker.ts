// An update()'s markers: one set before each of its PUTs, all deleted in
// the commit that saves the platform's answer, or when its first PUT
// certainly failed. A marker that a later update() finds says the record may
// be older than the hook (an update died after the platform took its PUT, or
// one runs right now): that update reads the hook from the platform first
// and builds its PUT on it, so it never sends older fields back.

import { keyFits, listAll, updateMarkerKey, updateMarkerPrefix, withLockRetry } from "../kv/mod.ts";
import { LEASE_MARGIN_MS } from "./_renewal_lease.ts";

/** How long a marker is kept at most (a record still older by then is brought level by reconcile's fix). */
const KEPT_MS = 30 * 86_400_000;

/**
 * Most markers of other updates one save deletes: its commit must stay within KV's 1,000 mutations (and the record
 * and its index entries take some), however many updates died; later updates delete the rest.
 */
const MAX_CLEARED = 100;

/**
 * How long after setting its marker an update may still send that PUT, given the calls' time limit (ms): the PUT
 * refused (401), a wait for another process's renewal lease (up to two leases of a time limit and 5 s each), the
 * renewal, the PUT again (five time limits and 10 s), and KV retries and clocks apart by some seconds besides.
 * A marker older than that belongs to an update that died.
 */
export function markerLifetime(timeout: number): number {
  return 6 * timeout + 4 * LEASE_MARGIN_MS;
}

/**
 * Whether the markers of record `recordId` fit in a KV key (2 KiB in all, with a UUID). A record saved by hand may
 * have an id that fits its own keys and not these: update() refuses it before sending anything.
 */
export function markerFits(recordId: string): boolean {
  return keyFits(updateMarkerKey(recordId, "00000000-0000-0000-0000-000000000000"));
}

/** What a marker holds. */
export interface UpdateMarker {
  /** When its update started (ms). */
  startedAt: number;
}

/** One update's markers of one record (one per PUT it sends), and the markers of other updates it found. */
export class UpdateMarkers {
  readonly #kv: Deno.Kv;
  readonly #recordId: string;
  /** This update's markers, the last one set last. */
  readonly #mine: Deno.KvKey[] = [];
  /** Markers of other updates, found before this one set its own. */
  found: Deno.KvEntry<UpdateMarker>[] = [];

  /** @param kv the store's KV; @param recordId the record updated */
  constructor(kv: Deno.Kv, recordId: string) {
    this.#kv = kv;
    this.#recordId = recordId;
  }

  /** Reads the markers of other updates; resolves whether there are any (the record may be older than the hook). */
  async look(): Promise<boolean> {
    this.found = await listAll<UpdateMarker>(this.#kv, updateMarkerPrefix(this.#recordId));
    return this.found.length > 0;
  }

  /**
   * Sets a marker of this update, before each of its PUTs: each under a key
   * of its own, started now. An update that sends its change again runs
   * past the age at which others take its first marker for dead (and delete
   * the key they found); the new one, younger, they leave.
   */
  async set(): Promise<void> {
    const key = updateMarkerKey(this.#recordId, crypto.randomUUID());
    const marker: UpdateMarker = { startedAt: Date.now() };
    await withLockRetry(() => this.#kv.set(key, marker, { expireIn: KEPT_MS }));
    this.#mine.push(key);
  }

  /**
   * Deletes, in `op` (the commit that saves the answer), this update's
   * markers and those found that started before `deadBefore` (at most
   * {@linkcode MAX_CLEARED} of them): updates that
   * would have ended by then died, and this one's PUT was built on the hook
   * as the platform had it. Younger ones may belong to updates still
   * running, which delete their own.
   */
  clear(op: Deno.AtomicOperation, deadBefore: number): void {
    for (const key of this.#mine) op.delete(key);
    // A marker edited by hand into junk (no numeric startedAt) is passed over and left as it is.
    const dead = this.found.filter((marker) => {
      const startedAt = (marker.value as Partial<UpdateMarker> | null)?.startedAt;
      return typeof startedAt === "number" && startedAt < deadBefore;
    });
    for (const marker of dead.slice(0, MAX_CLEARED)) op.delete(marker.key);
  }

  /** Deletes this update's markers, as well as it can (none of its PUTs changed the hook). */
  async drop(): Promise<void> {
    for (const key of this.#mine) await withLockRetry(() => this.#kv.delete(key)).catch(() => {});
  }
}

/** Whether `error` says its request was certainly not carried out (`uncertain: false`, see PlatformError). */
export function certainFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { uncertain?: unknown }).uncertain === false;
}
