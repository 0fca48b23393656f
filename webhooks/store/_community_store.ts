// The community store's implementation (communities.ts has its contract):
// records by tenant id, a name pointer, and the previous secret of a rotation.

import {
  commitWithRetry,
  COMMUNITY_PREFIX,
  communityByNameKey,
  communityKey,
  communitySecretPreviousKey,
  keyFits,
  sizeError,
  unlessKeyTooLarge,
  withLockRetry,
} from "../kv/mod.ts";
import { ConflictError } from "../errors.ts";
import { secretGuard } from "./_secret_guard.ts";
import { PREVIOUS_SECRET_KEEP_MS, readRotation, rotationOf } from "../signature/mod.ts";
import { checkCursor, checkListOptions, describe, pageLimit, requireString } from "../_util.ts";
import { communitySizeError, validateCommunity } from "./_validate_community.ts";
import { kvCursorFor, storePageCursor } from "./_page_cursor.ts";
import { earlierLayout, isTenantId, recordOf } from "./_community_values.ts";
import type { Community } from "../types.ts";
import type { Communities } from "./communities.ts";

/**
 * Makes the community store over a KV database.
 *
 * @param kv The KV database.
 * @returns The store.
 *
 * @example Usage
 * ```ts
 * import { createCommunities } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const communities = createCommunities(kv);
 * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
 * assert.equal((await communities.findByName("Acme"))?.tenantId, "t1");
 * kv.close();
 * ```
 */
export function createCommunities(kv: Deno.Kv): Communities {
  /**
   * An entry, or `null` for a key too long for KV (nothing can be stored under one). Inside a `commitWithRetry`, which
   * retries a locked database itself, `retry` is `false`.
   */
  const entryAt = <T>(key: Deno.KvKey, retry = true) =>
    unlessKeyTooLarge(() => retry ? withLockRetry(() => kv.get<T>(key)) : kv.get<T>(key), null);
  /**
   * The community of this tenant id, as {@linkcode entryAt}; `null` also for another tenant's: KV keys "t\uD800" and
   * "t\uFFFD" alike (a lone surrogate is written as U+FFFD).
   */
  const communityAt = async (tenantId: string, retry = true) => {
    const entry = await entryAt<Community>(communityKey(tenantId), retry);
    return entry?.value?.tenantId === tenantId ? entry : null;
  };

  async function findByTenantID(tenantId: string): Promise<Community | null> {
    requireString(tenantId, "tenantId", "find community");
    return (await communityAt(tenantId))?.value ?? null;
  }

  /**
   * The entry of the other tenant the name's pointer names, read to tell a
   * live holder from a pointer left stale (its record deleted or renamed by
   * hand); `null` when the pointer is junk or this tenant's own.
   */
  async function otherHolder(byName: Deno.KvEntryMaybe<string>, tenantId: string) {
    if (!isTenantId(byName.value) || byName.value === tenantId) return null;
    return await entryAt<Community>(communityKey(byName.value), false);
  }

  /**
   * The operation that stores `record` over `current` (its name pointer
   * `byName`, read together, and the pointer's other holder): checked by their
   * versionstamps, the old name's pointer dropped, and a replaced secret kept
   * for its overlap. In an array: an operation is no value a promise resolves to.
   */
  async function storeOps(
    current: Deno.KvEntryMaybe<Community>,
    byName: Deno.KvEntryMaybe<string>,
    record: Community,
  ): Promise<[Deno.AtomicOperation]> {
    const holder = await otherHolder(byName, record.tenantId);
    // A pointer edited by hand into junk (not a tenant id) names no tenant: the record's pointer replaces it. One
    // naming a tenant whose record no longer holds the name is taken over, that record checked unchanged meanwhile.
    if ((holder?.value as { name?: unknown } | null | undefined)?.name === record.name) {
      throw new ConflictError(
        `Cannot save community: the name ${describe(record.name)} is already used by another tenant`,
      );
    }
    const op = kv.atomic().check(current, byName, ...(holder ? [holder] : []));
    // Junk under the key (edited by hand) is stored over as none: its name and secret are no old ones of this tenant.
    const stored = recordOf(current.value, record.tenantId);
    // Its old name's pointer goes when it is this tenant's: a name edited by hand may be too long for a key, or a
    // copy of another tenant's, whose pointer that is.
    if (stored && stored.name !== record.name && keyFits(communityByNameKey(stored.name))) {
      const old = await kv.get<unknown>(communityByNameKey(stored.name));
      if (old.value === record.tenantId) op.check(old).delete(old.key);
    }
    // A replaced secret keeps verifying for a while: its entry goes in with the record that replaces it.
    const previous = rotationOf(stored, record, Date.now());
    if (previous) {
      op.set(communitySecretPreviousKey(record.tenantId), previous, { expireIn: PREVIOUS_SECRET_KEEP_MS });
    }
    return [op.set(communityKey(record.tenantId), record).set(communityByNameKey(record.name), record.tenantId)];
  }

  return {
    async save(community) {
      validateCommunity(community);
      const record: Community = { ...community };
      const guard = secretGuard("save", record.tenantId);
      const result = await commitWithRetry(async () => {
        const [current, byName] = await kv.getMany<[Community, string]>([
          communityKey(record.tenantId),
          communityByNameKey(record.name),
        ]);
        guard(recordOf(current.value, record.tenantId), record);
        return await storeOps(current, byName, record);
      }, "save community").catch((error) => {
        throw communitySizeError(sizeError(error, `community ${describe(record.tenantId)}`, record), record);
      });
      return result!;
    },

    async add(community) {
      validateCommunity(community);
      const record: Community = { ...community };
      let added = false;
      await commitWithRetry(async () => {
        const [current, byName] = await kv.getMany<[Community, string]>([
          communityKey(record.tenantId),
          communityByNameKey(record.name),
        ]);
        // Checked by the commit: one stored meanwhile fails it, and is seen here. Junk under the key counts as none.
        added = recordOf(current.value, record.tenantId) === null && !earlierLayout(current.value);
        return added ? await storeOps(current, byName, record) : null;
      }, "save community").catch((error) => {
        throw communitySizeError(sizeError(error, `community ${describe(record.tenantId)}`, record), record);
      });
      return added;
    },

    async update(tenantId, change) {
      requireString(tenantId, "tenantId", "update community");
      if (typeof change !== "function") {
        throw new TypeError(`Cannot update community: 'change' must be a function, got ${describe(change)}`);
      }
      let saved: Community | null = null;
      let tried: Community | null = null; // the record last built, to name the field of one too large
      const guard = secretGuard("update", tenantId);
      await commitWithRetry(async () => {
        const current = await communityAt(tenantId, false);
        if (current?.value == null) return (saved = null);
        // Applied to the record as it is now (a fresh copy: KV deserialises each read); again, to the newer one,
        // when another write got in first.
        const record: Community = { ...change(current.value) };
        validateCommunity(record);
        tried = record;
        if (record.tenantId !== tenantId) {
          throw new TypeError("Cannot update community: 'change' may not change its tenantId");
        }
        guard(current.value, record);
        const byName = await kv.get<string>(communityByNameKey(record.name));
        saved = record;
        return await storeOps(current, byName, record);
      }, "update community").catch((error) => {
        const sized = sizeError(error, `community ${describe(tenantId)}`);
        throw tried ? communitySizeError(sized, tried) : sized;
      });
      return saved;
    },

    async findByName(name) {
      requireString(name, "name", "find community");
      for (let attempt = 0; attempt < 5; attempt++) {
        const pointer = await entryAt<string>(communityByNameKey(name));
        // A pointer edited by hand into junk (not a tenant id) points at no community.
        if (!isTenantId(pointer?.value)) return null;
        const community = await findByTenantID(pointer.value);
        // A rename between the two reads: read the pointer again.
        if (community?.name === name) return community;
      }
      return null;
    },

    findByTenantID,

    async list(given) {
      const options = checkListOptions(given, "list communities");
      const limit = pageLimit(options.limit, "list communities");
      checkCursor(options.cursor, "list communities");
      const cursor = kvCursorFor(options.cursor, "communities", "list communities");
      return await withLockRetry(async () => {
        const iter = kv.list<Community>({ prefix: COMMUNITY_PREFIX }, { limit, cursor });
        const values: Community[] = [];
        for await (const { key, value } of iter) {
          // An entry edited by hand into junk (not an object, another tenant's record) is passed over.
          if (typeof value === "object" && value !== null && value.tenantId === key[1]) values.push(value);
        }
        return { values, cursor: storePageCursor(values.length < limit ? "" : iter.cursor, "communities") };
      });
    },

    async remove(tenantId) {
      requireString(tenantId, "tenantId", "remove community");
      let removed = false;
      await commitWithRetry(async () => {
        const current = await communityAt(tenantId, false);
        removed = current?.value != null;
        if (!removed) return null;
        const op = kv.atomic().check(current!).delete(communityKey(tenantId));
        // Its name's pointer goes when it is this tenant's: a name edited into junk keys none, one copied is another's.
        const name: unknown = current!.value!.name;
        const byName = typeof name === "string" && keyFits(communityByNameKey(name))
          ? await kv.get<unknown>(communityByNameKey(name))
          : null;
        if (byName?.value === tenantId) op.check(byName).delete(byName.key);
        // A tenant id stored by an earlier version, too long for this key, has nothing under it.
        if (keyFits(communitySecretPreviousKey(tenantId))) op.delete(communitySecretPreviousKey(tenantId));
        return [op];
      }, "remove community");
      return removed;
    },

    async storeTokens(tenantId, tokens) {
      requireString(tenantId, "tenantId", "store renewed tokens");
      // A pair of the wrong shape would replace good tokens with none. Token values are secrets: never shown.
      if (typeof tokens !== "object" || tokens === null || Array.isArray(tokens)) {
        throw new TypeError(
          "Cannot store renewed tokens: 'tokens' must be an object with access_token and refresh_token",
        );
      }
      if (typeof tokens.access_token !== "string" || tokens.access_token === "") {
        throw new TypeError("Cannot store renewed tokens: 'tokens.access_token' must be a non-empty string");
      }
      if (tokens.refresh_token !== undefined && typeof tokens.refresh_token !== "string") {
        throw new TypeError("Cannot store renewed tokens: 'tokens.refresh_token' must be a string");
      }
      let stored = false;
      await commitWithRetry(async () => {
        const current = await communityAt(tenantId, false);
        stored = current?.value != null;
        if (!stored) return null;
        const record = { ...current!.value!, oauth: { ...tokens }, renewedAt: new Date().toISOString() };
        return [kv.atomic().check(current!).set(communityKey(tenantId), record)];
      }, "store renewed tokens").catch((error) => {
        throw sizeError(error, `the renewed tokens of community ${describe(tenantId)}`); // never the tokens
      });
      return stored;
    },

    async revokePreviousSecret(tenantId, options) {
      requireString(tenantId, "tenantId", "revoke previous secret");
      const wanted = options?.rotatedAt;
      if (wanted !== undefined && typeof wanted !== "string") {
        throw new TypeError(`Cannot revoke previous secret: 'rotatedAt' must be a string, got ${describe(wanted)}`);
      }
      let revoked = false;
      await commitWithRetry(async () => {
        // No community has a tenant id with a lone surrogate (save refuses one): its key is another's.
        if (!tenantId.isWellFormed()) return null;
        const current = await entryAt(communitySecretPreviousKey(tenantId), false);
        // Another rotation since the one named: its previous secret is not the one the caller meant.
        const rotation = wanted === undefined ? null : readRotation(current?.value);
        const named = wanted === undefined ||
          (rotation !== null && new Date(rotation.rotatedAt).toISOString() === wanted);
        revoked = current?.value != null && named;
        return revoked ? [kv.atomic().check(current!).delete(communitySecretPreviousKey(tenantId))] : null;
      }, "revoke previous secret");
      return revoked;
    },

    async secretRotation(tenantId) {
      requireString(tenantId, "tenantId", "read secret rotation");
      if (!tenantId.isWellFormed()) return null; // no community has one (save refuses it): its key is another's
      // An entry edited by hand into junk is no rotation (receivers verify nothing with it).
      const rotation = readRotation((await entryAt(communitySecretPreviousKey(tenantId)))?.value);
      if (rotation === null) return null;
      const { rotatedAt, validUntil } = rotation;
      return { rotatedAt: new Date(rotatedAt).toISOString(), validUntil: new Date(validUntil).toISOString() };
    },
  };
}
