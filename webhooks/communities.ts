/**
 * The community store (collection `community`), reached as
 * `createWebhooks(kv).communities`.
 *
 * @module
 */

import { COMMUNITY_PREFIX, communityByNameKey, communityKey, communitySecretPreviousKey } from "./_keys.ts";
import { ConflictError } from "./errors.ts";
import { commitWithRetry, sizeError, unlessKeyTooLarge, withLockRetry } from "./_kv.ts";
import { PREVIOUS_SECRET_KEEP_MS, type PreviousSecret, rotationOf } from "./_secret_rotation.ts";
import { describe, pageLimit, requireString } from "./_util.ts";
import { validateCommunity } from "./_validate_community.ts";
import type { Community, Page, SecretRotation, TokenPair } from "./types.ts";
import type { ListOptions } from "./options.ts";

/**
 * The community store. `name` and `tenantId` are each unique; the record is
 * keyed by `tenantId`.
 */
export interface Communities {
  /**
   * Stores a community, or replaces the one with the same `tenantId`.
   *
   * When it replaces or removes the stored client secret, the stored one
   * becomes the previous secret, in the same atomic operation: receivers
   * still accept postbacks signed with it for 6 min 30 s (the default
   * signature window of 5 minutes back and 30 s ahead, and a minute for
   * clocks), so those signed just before the change are not refused. Only
   * the last replaced secret is kept; see {@linkcode Communities.secretRotation}.
   *
   * @param community `{ name, tenantId, baseUrl, clientId?, clientSecret?, oauth? }`.
   * @returns The store result.
   * @throws {TypeError} When a field is missing or of the wrong type.
   * @throws {ConflictError} When another tenant already uses the name.
   * @throws {RangeError} When the record is too large for one KV value.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * await assert.rejects(() => communities.save({ name: "Acme", tenantId: "t2", baseUrl: "https://d.example" }));
   * kv.close();
   * ```
   */
  save(community: Community): Promise<Deno.KvCommitResult>;
  /**
   * Finds a community by its name (SPEC.md's community lookup by name).
   *
   * @param name The community's name.
   * @returns The community, or `null` when none has that name.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal((await communities.findByName("Acme"))?.tenantId, "t1");
   * assert.equal(await communities.findByName("Other"), null);
   * kv.close();
   * ```
   */
  findByName(name: string): Promise<Community | null>;
  /**
   * Finds a community by its tenant id.
   *
   * @param tenantId The community's tenant id.
   * @returns The community, or `null` when none has that tenant id.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal((await communities.findByTenantID("t1"))?.name, "Acme");
   * kv.close();
   * ```
   */
  findByTenantID(tenantId: string): Promise<Community | null>;
  /**
   * Lists communities a page at a time, ordered by tenant id.
   *
   * @param options `cursor` from the previous page and `limit` (default 100).
   * @returns A page `{ values, cursor }`; `cursor` is `""` on the last page.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * const page = await communities.list({ limit: 10 });
   * assert.deepEqual(page.values.map((c) => c.name), ["Acme"]);
   * assert.equal(page.cursor, "");
   * kv.close();
   * ```
   */
  list(options?: ListOptions): Promise<Page<Community>>;
  /**
   * Deletes a community. Its webhook records are kept.
   *
   * @param tenantId The community's tenant id.
   * @returns `true` when a community was deleted, `false` when none had that tenant id.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal(await communities.remove("t1"), true);
   * assert.equal(await communities.findByName("Acme"), null);
   * kv.close();
   * ```
   */
  remove(tenantId: string): Promise<boolean>;
  /**
   * Stores renewed tokens on the community with `renewedAt` set to now.
   *
   * @param tenantId The community's tenant id.
   * @param tokens The new token pair.
   * @returns `true` when stored, `false` when no community has that tenant id.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * await communities.storeTokens("t1", { access_token: "a2", refresh_token: "r2" });
   * assert.equal((await communities.findByTenantID("t1"))?.oauth?.access_token, "a2");
   * kv.close();
   * ```
   */
  storeTokens(tenantId: string, tokens: TokenPair): Promise<boolean>;
  /**
   * The last rotation of a community's client secret, never the secret
   * itself. It is returned as stored: the previous secret verifies while
   * `validUntil` has not passed (compare it with your clock); the entry
   * expires from KV a minute after that, and goes with the community.
   *
   * @param tenantId The community's tenant id.
   * @returns `{ rotatedAt, validUntil }`, or `null` when no secret of the community was replaced recently.
   * @throws {TypeError} When `tenantId` is not a non-empty string.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const { communities } = createWebhooks(kv);
   * const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example", clientSecret: btoa("old secret") };
   * await communities.save(acme);
   * assert.equal(await communities.secretRotation("t1"), null);
   * await communities.save({ ...acme, clientSecret: btoa("new secret") });
   * const rotation = await communities.secretRotation("t1");
   * assert.ok(rotation && Date.parse(rotation.validUntil) > Date.parse(rotation.rotatedAt));
   * assert.equal(JSON.stringify(rotation).includes(btoa("old secret")), false);
   * kv.close();
   * ```
   */
  secretRotation(tenantId: string): Promise<SecretRotation | null>;
}

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
  /** An entry, or `null` for a key too long for KV (nothing can be stored under one). */
  const entryAt = <T>(key: Deno.KvKey) => unlessKeyTooLarge(() => withLockRetry(() => kv.get<T>(key)), null);

  async function findByTenantID(tenantId: string): Promise<Community | null> {
    requireString(tenantId, "tenantId", "find community");
    return (await entryAt<Community>(communityKey(tenantId)))?.value ?? null;
  }

  return {
    async save(community) {
      validateCommunity(community);
      const record: Community = { ...community };
      const result = await commitWithRetry(async () => {
        const [current, byName] = await kv.getMany<[Community, string]>([
          communityKey(record.tenantId),
          communityByNameKey(record.name),
        ]);
        if (byName.value !== null && byName.value !== record.tenantId) {
          throw new ConflictError(
            `Cannot save community: the name ${describe(record.name)} is already used by another tenant`,
          );
        }
        const op = kv.atomic().check(current, byName);
        if (current.value && current.value.name !== record.name) op.delete(communityByNameKey(current.value.name));
        // A replaced secret keeps verifying for a while: its entry goes in with the record that replaces it.
        const previous = rotationOf(current.value, record, Date.now());
        if (previous) {
          op.set(communitySecretPreviousKey(record.tenantId), previous, { expireIn: PREVIOUS_SECRET_KEEP_MS });
        }
        return [op.set(communityKey(record.tenantId), record).set(communityByNameKey(record.name), record.tenantId)];
      }, "save community").catch((error) => {
        throw sizeError(error, `community ${describe(record.tenantId)}`);
      });
      return result!;
    },

    async findByName(name) {
      requireString(name, "name", "find community");
      for (let attempt = 0; attempt < 5; attempt++) {
        const pointer = await entryAt<string>(communityByNameKey(name));
        if (pointer?.value == null) return null;
        const community = await findByTenantID(pointer.value);
        // A rename between the two reads: read the pointer again.
        if (community?.name === name) return community;
      }
      return null;
    },

    findByTenantID,

    async list(options = {}) {
      const limit = pageLimit(options.limit);
      return await withLockRetry(async () => {
        const iter = kv.list<Community>({ prefix: COMMUNITY_PREFIX }, { limit, cursor: options.cursor || undefined });
        const values: Community[] = [];
        for await (const entry of iter) values.push(entry.value);
        return { values, cursor: values.length < limit ? "" : iter.cursor };
      });
    },

    async remove(tenantId) {
      requireString(tenantId, "tenantId", "remove community");
      let removed = false;
      await commitWithRetry(async () => {
        const current = await kv.get<Community>(communityKey(tenantId));
        removed = current.value !== null;
        if (!removed) return null;
        return [
          kv.atomic().check(current).delete(communityKey(tenantId)).delete(communityByNameKey(current.value!.name))
            .delete(communitySecretPreviousKey(tenantId)),
        ];
      }, "remove community");
      return removed;
    },

    async storeTokens(tenantId, tokens) {
      let stored = false;
      await commitWithRetry(async () => {
        const current = await kv.get<Community>(communityKey(tenantId));
        stored = current.value !== null;
        if (!stored) return null;
        const record = { ...current.value!, oauth: { ...tokens }, renewedAt: new Date().toISOString() };
        return [kv.atomic().check(current).set(communityKey(tenantId), record)];
      }, "store renewed tokens");
      return stored;
    },

    async secretRotation(tenantId) {
      requireString(tenantId, "tenantId", "read secret rotation");
      const entry = await entryAt<PreviousSecret>(communitySecretPreviousKey(tenantId));
      if (!entry?.value) return null;
      const { rotatedAt, validUntil } = entry.value;
      return { rotatedAt: new Date(rotatedAt).toISOString(), validUntil: new Date(validUntil).toISOString() };
    },
  };
}
