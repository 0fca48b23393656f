// This process's copy of the destination list, for `write` (synchronous),
// the workers and `destinations.list()`. It counts as fresh for a second
// after its version was last confirmed; `write` uses it only while fresh
// (else it leaves the postback for a worker to fan out), and reloads it in
// the background when half that age is past, so under steady traffic it
// stays fresh. A version read costs one `get`; the list is read again only
// when the version moved. `listed` is exact: it reads the version first and
// answers the copy only when the copy was read at that very version.

import { Webhook } from "standardwebhooks";
import { DESTINATION_PREFIX, DESTINATIONS_VERSION_KEY } from "./_keys.ts";
import type { StoredDestination } from "./_destinations.ts";
import { idOfKey, readable } from "./damaged/mod.ts";

/** How long a confirmed list counts as fresh (ms of real time). */
export const FRESH_MS = 1_000;

/** How a reload failed: the KV's error. */
type Failure = { error: unknown } | null;

/** A cached destination, its signer, and the versionstamp of its record's last change. */
export interface CachedDestination extends StoredDestination {
  /** `null` when the stored secret is malformed (a KV edited by hand: `add` checks it); its attempts then fail. */
  signer: Webhook | null;
  versionstamp: string;
}

/** The cached list. */
export class DestinationCache {
  #kv: Deno.Kv;
  #byId = new Map<string, CachedDestination>();
  #versionstamp: string | null | undefined = undefined;
  #confirmedAt = -Infinity;
  #loading: Promise<Failure> | null = null;
  #generation = 0;
  /** Whether the last reload failed (the KV answered an error). */
  #failed = false;

  /** @param kv the relay's KV */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Whether the list was confirmed within {@linkcode FRESH_MS}; past half of it, a reload starts. */
  fresh(): boolean {
    const age = performance.now() - this.#confirmedAt;
    if (age > FRESH_MS / 2) this.refresh();
    return age < FRESH_MS;
  }

  /** Every cached destination. */
  all(): Iterable<CachedDestination> {
    return this.#byId.values();
  }

  /** One cached destination. */
  get(id: string): CachedDestination | undefined {
    return this.#byId.get(id);
  }

  /** Forgets the confirmation (a change was made, or seen by a watch) and reloads. */
  invalidate(): void {
    this.#confirmedAt = -Infinity;
    this.#generation++;
    this.refresh();
  }

  /** Starts a reload unless one is running. */
  refresh(): void {
    void this.#start();
  }

  /** The reload running, or a new one; it resolves with how it failed (`null`: it did not). */
  #start(): Promise<Failure> {
    // The KV gone or failing leaves the list unconfirmed, and `write` falls back to fan-out.
    this.#loading ??= this.#reload().then(() => null, (error: unknown) => ({ error })).then((failure) => {
      this.#failed = failure !== null;
      this.#loading = null;
      return failure;
    });
    return this.#loading;
  }

  /** Reloads now (after any reload running); resolves `false` when that reload failed (the list is as it was). */
  async load(): Promise<boolean> {
    await this.#loading;
    return await this.#start() === null;
  }

  /**
   * Every destination as stored now, oldest first: the copy when the version key is where the copy was read
   * (one `get`), else read again. Rejects with the KV's error when it fails. The values are the cache's own: a
   * caller hands out copies.
   */
  async listed(): Promise<CachedDestination[]> {
    const version = await this.#kv.get(DESTINATIONS_VERSION_KEY);
    if (this.#versionstamp === undefined || version.versionstamp !== this.#versionstamp) {
      // A reload started before this call may have read the version before it moved: one started after it.
      await this.#loading;
      const failure = await this.#start();
      if (failure !== null) throw failure.error;
    }
    return [...this.#byId.values()];
  }

  /** Waits for a running reload. */
  async settle(): Promise<void> {
    await this.#loading;
  }

  async #reload(): Promise<void> {
    const started = performance.now();
    const generation = this.#generation;
    const version = await this.#kv.get(DESTINATIONS_VERSION_KEY);
    if (version.versionstamp !== this.#versionstamp || this.#versionstamp === undefined) {
      const next = new Map<string, CachedDestination>();
      for await (
        const { key, value, versionstamp } of this.#kv.list({ prefix: DESTINATION_PREFIX })
      ) {
        const id = idOfKey(key);
        if (id === null) continue; // no destination's key: no call names it
        const stored = readable(id, value); // a damaged record under its key's id, saying so
        next.set(stored.id, cachedDestination(stored, versionstamp, this.#byId.get(stored.id)));
      }
      // The list is read in pages: a change committed meanwhile may show in some and not in others. Every change
      // moves the version, so the list is the one of `version` only when the version is still there after it. When
      // it moved, the list (every change before this reload began in it) serves `write`, but no version is claimed
      // for it: the next reload, or `listed`, reads it again.
      const after = await this.#kv.get(DESTINATIONS_VERSION_KEY);
      this.#byId = next;
      this.#versionstamp = after.versionstamp === version.versionstamp ? version.versionstamp : undefined;
    }
    // A change made here while reading is confirmed by the next reload, not this one.
    if (generation === this.#generation) this.#confirmedAt = started;
  }
}

/**
 * A cached destination, its signer kept from `old` while the secret is the same: a malformed stored secret gives no
 * signer (its deliveries fail, saying so) rather than a throw that fails every list.
 */
function cachedDestination(
  stored: StoredDestination,
  versionstamp: string,
  old: CachedDestination | undefined,
): CachedDestination {
  return {
    ...stored,
    versionstamp,
    signer: old && old.secret === stored.secret ? old.signer : signerOf(stored.secret),
  };
}

function signerOf(secret: string): Webhook | null {
  try {
    return new Webhook(secret);
  } catch {
    return null;
  }
}

/** Whether a destination takes postbacks of `hookId`. */
export function matches(destination: StoredDestination, hookId: string): boolean {
  return destination.enabled && linksHook(destination, hookId);
}

/** Whether `destination` forwards the postbacks of hook `hookId`, enabled or not: every hook's, or that one's. */
export function linksHook(destination: StoredDestination, hookId: string): boolean {
  return destination.hookIds === undefined || destination.hookIds.includes(hookId);
}
