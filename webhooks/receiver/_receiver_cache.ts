// The receiver's read-through cache of communities and webhook records, and
// the reads that fill it. A cached entry is only a hint: it carries the KV
// key and versionstamp it was read at, and the receiver adds those as checks
// to the atomic commit that claims the postback. If anything changed since
// (a secret rotated, a hook removed, tokens renewed), the commit fails and
// the receiver reads afresh; so a hit costs no KV round trip and can never
// hand on a postback against data that is no longer there. A community is
// read with its rotation entry (the previous client secret, while it still
// verifies), whose check the commit carries when the previous secret was used.

import {
  communityKey,
  communitySecretPreviousKey,
  getManyBatched,
  ownKeyId,
  urlKeyPart,
  webhookByUrlPrefix,
  webhookKey,
  withLockRetry,
} from "../kv/mod.ts";
import { type PreviousSecret, readRotation, verifyingKey } from "../signature/mod.ts";
import { selfRef } from "../store/mod.ts";
import type { Community, Webhook } from "../types.ts";

/** A value as read, with the check that proves it is still current. */
export interface Stamped<T> {
  value: T;
  check: Deno.AtomicCheck;
}

/** A community's previous client secret as read, decoded once. */
export interface PreviousKey {
  /** Its HMAC key; `null` when it cannot verify signatures. */
  keyBytes: Uint8Array | null;
  /** The client id it was paired with. */
  clientId: string | undefined;
  /** The last moment (receiver clock, ms) it verifies. */
  validUntil: number;
}

/** A community as read with its rotation entry, and its secrets decoded once. */
export interface CachedCommunity extends Stamped<Community> {
  /** The current secret's HMAC key; `null` when the community has none that verifies. */
  keyBytes: Uint8Array | null;
  /** The previous secret, `null` when there is none. */
  previous: PreviousKey | null;
  /** The rotation entry's check (its versionstamp `null` when there is none). */
  previousCheck: Deno.AtomicCheck;
}

/** Communities kept per receiver. */
const MAX_COMMUNITIES = 256;
/** Records kept per receiver (each at most one KV value, 64 KiB). */
const MAX_RECORDS = 512;

/** Sets a key last in a bounded map, dropping the oldest entry beyond `max`. */
function put<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}

/** A record's slot: the tenant id's length first, so no tenant id and URL pair reads as another. */
function recordSlot(tenantId: string, url: string): string {
  return `${tenantId.length}:${tenantId}${url}`;
}

/** The cache of one receiver. */
export class ReceiverCache {
  #communities = new Map<string, CachedCommunity>();
  #records = new Map<string, Stamped<Webhook>>();

  community(tenantId: string): CachedCommunity | undefined {
    return this.#communities.get(tenantId);
  }

  rememberCommunity(tenantId: string, entry: CachedCommunity): void {
    put(this.#communities, tenantId, entry, MAX_COMMUNITIES);
  }

  record(tenantId: string, url: string): Stamped<Webhook> | undefined {
    return this.#records.get(recordSlot(tenantId, url));
  }

  rememberRecord(tenantId: string, url: string, entry: Stamped<Webhook>): void {
    put(this.#records, recordSlot(tenantId, url), entry, MAX_RECORDS);
  }

  /** Drops a tenant's community and the records of these URLs. */
  forget(tenantId: string, urls: Iterable<string>): void {
    this.#communities.delete(tenantId);
    for (const url of urls) this.#records.delete(recordSlot(tenantId, url));
  }
}

function checkOf(entry: Deno.KvEntryMaybe<unknown>): Deno.AtomicCheck {
  ownKeyId(entry.key); // kept with the cached value, checked per postback
  return { key: entry.key, versionstamp: entry.versionstamp };
}

/**
 * Reads a community and its rotation entry (one round trip), each with its versionstamp, secrets decoded; `"damaged"`
 * when its key holds something else (edited by hand, a bad write).
 */
export async function readCommunity(kv: Deno.Kv, tenantId: string): Promise<CachedCommunity | "damaged" | null> {
  const [entry, rotation] = await withLockRetry(() =>
    kv.getMany<[Community, PreviousSecret]>([communityKey(tenantId), communitySecretPreviousKey(tenantId)])
  );
  // As communities.findByTenantID reads it: an entry holding another tenant's record (edited by hand), or junk, is
  // no community of this tenant. Checked once per read of the community, not per postback.
  const value = entry.value;
  if (typeof value !== "object" || value === null || value.tenantId !== tenantId) {
    return entry.versionstamp === null ? null : "damaged"; // told apart for the report only: both are answered alike
  }
  // Read once per KV read, not per postback: a rotation entry edited into junk is none.
  const previous = readRotation(rotation.value);
  return {
    value,
    check: checkOf(entry),
    keyBytes: verifyingKey(value.clientSecret),
    previous: previous && {
      keyBytes: verifyingKey(previous.secret),
      clientId: previous.clientId,
      validUntil: previous.validUntil,
    },
    previousCheck: checkOf(rotation),
  };
}

/**
 * The first record of a tenant under a self URL, with the check that proves
 * it current: its index copy's key and versionstamp (a copy is rewritten or
 * deleted in every atomic operation that changes its record), or for a
 * pointer entry of the earlier layout, its primary entry's.
 */
export async function readRecord(kv: Deno.Kv, tenantId: string, url: string): Promise<Stamped<Webhook> | null> {
  const prefix = webhookByUrlPrefix(await urlKeyPart(url));
  return await withLockRetry(async () => {
    const entries: Deno.KvEntry<Webhook | string>[] = [];
    for await (const entry of kv.list<Webhook | string>({ prefix })) entries.push(entry);
    const pointers = entries.filter((e) => typeof e.value === "string").map((e) => webhookKey(e.value as string));
    const primaries = pointers.length === 0 ? [] : await getManyBatched<Webhook>(kv, pointers);
    let p = 0;
    for (const entry of entries) {
      const stamped: Stamped<Webhook | null> = typeof entry.value === "string"
        ? { value: primaries[p].value, check: checkOf(primaries[p++]) }
        : { value: entry.value, check: checkOf(entry) };
      const record = stamped.value;
      if (record && record.tenantId === tenantId && selfRef(record.entity) === url) {
        return { value: record, check: stamped.check };
      }
    }
    return null;
  });
}

/** Whether every check still holds (one read). */
export async function stillCurrent(kv: Deno.Kv, checks: Deno.AtomicCheck[]): Promise<boolean> {
  if (checks.length === 0) return true;
  const entries = await getManyBatched(kv, checks.map((c) => c.key));
  return entries.every((entry, i) => entry.versionstamp === checks[i].versionstamp);
}
