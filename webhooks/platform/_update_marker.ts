// An update()'s marker: set before its PUT, deleted in the commit that saves
// the platform's answer, or when the PUT certainly failed. A marker that a
// later update() finds says the record may be older than the hook (an update
// died after the platform took its PUT, or one runs right now): that update
// reads the hook from the platform first and builds its PUT on it, so it
// never sends older fields back.

import { listAll, updateMarkerKey, updateMarkerPrefix, withLockRetry } from "../kv/mod.ts";

/** How long a marker is kept at most (a record still older by then is brought level by reconcile's fix). */
const KEPT_MS = 30 * 86_400_000;

/** What a marker holds. */
export interface UpdateMarker {
  /** When its update started (ms). */
  startedAt: number;
}

/** One update's marker of one record, and the markers of other updates it found. */
export class UpdateMarkers {
  readonly #kv: Deno.Kv;
  readonly #key: Deno.KvKey;
  readonly #recordId: string;
  /** Markers of other updates, found before this one set its own. */
  found: Deno.KvEntry<UpdateMarker>[] = [];

  /** @param kv the store's KV; @param recordId the record updated */
  constructor(kv: Deno.Kv, recordId: string) {
    this.#kv = kv;
    this.#recordId = recordId;
    this.#key = updateMarkerKey(recordId, crypto.randomUUID());
  }

  /** Reads the markers of other updates; resolves whether there are any (the record may be older than the hook). */
  async look(): Promise<boolean> {
    this.found = await listAll<UpdateMarker>(this.#kv, updateMarkerPrefix(this.#recordId));
    return this.found.length > 0;
  }

  /** Sets this update's marker (before its PUT). */
  async set(): Promise<void> {
    const marker: UpdateMarker = { startedAt: Date.now() };
    await withLockRetry(() => this.#kv.set(this.#key, marker, { expireIn: KEPT_MS }));
  }

  /**
   * Deletes, in `op` (the commit that saves the answer), this update's
   * marker and those found that started before `deadBefore`: updates that
   * would have ended by then died, and this one's PUT was built on the hook
   * as the platform had it. Younger ones may belong to updates still
   * running, which delete their own.
   */
  clear(op: Deno.AtomicOperation, deadBefore: number): void {
    op.delete(this.#key);
    for (const marker of this.found) if (marker.value.startedAt < deadBefore) op.delete(marker.key);
  }

  /** Deletes this update's marker alone, as well as it can (its PUT certainly did not change the hook). */
  async drop(): Promise<void> {
    await withLockRetry(() => this.#kv.delete(this.#key)).catch(() => {});
  }
}

/** Whether `error` says its request was certainly not carried out (`uncertain: false`, see PlatformError). */
export function certainFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { uncertain?: unknown }).uncertain === false;
}
