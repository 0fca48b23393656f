/**
 * The webhook store and the platform operations of Module A.
 *
 * @module
 */

import { monotonicFactory } from "ulid";
import { rememberKv, unlessKeyTooLarge, webhookByTenantPrefix, webhookKey, withLockRetry } from "./kv/mod.ts";
import {
  checkStoredRecord,
  deleteOnPlatform,
  platformHookUrl,
  platformOps,
  readPendings,
  reconcileCommunity,
  validateCredentials,
  type WebhookRegistration,
} from "./platform/mod.ts";
import {
  type Communities,
  createCommunities,
  listPage,
  migrateIndexes,
  recordsByUrl,
  recordsUnder,
  removeRecord,
  type WebhookLookups,
  type WebhookStore,
  writeRecord,
} from "./store/mod.ts";
import { checkCursor, checkListOptions, describe, MAX_TIMER_MS, pageLimit, requireKeyString } from "./_util.ts";
import { requireNumber, requireString } from "./_util.ts";
import { platformOperation } from "./telemetry/mod.ts";
import type { Community, TenantRef, Webhook, WebhookInput } from "./types.ts";
import type { CredentialOptions, MigrateOptions } from "./options.ts";

/** Options of {@linkcode createWebhooks}. */
export interface WebhooksOptions {
  /** The `fetch` used for platform calls (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** Milliseconds a platform call may take before it fails (default 30000; above 0, at most 2^31-1). */
  timeout?: number;
}

/** Module A: webhook records in Deno KV (the store, its lookups) and their registration on the platform. */
export interface Webhooks extends WebhookStore, WebhookLookups, WebhookRegistration {
  /** The community store (collection `community`). */
  readonly communities: Communities;
}

/**
 * Makes the Module A store over a KV database.
 *
 * @param kv The KV database: `await Deno.openKv(":memory:")`, a file or a KV Connect URL.
 * @param options `fetch` for platform calls and the call `timeout` in ms.
 * @returns The {@linkcode Webhooks} store.
 * @throws {TypeError} When `kv` or an option is of the wrong type.
 * @throws {RangeError} When `timeout` is not above 0 and at most 2^31-1 ms (what a timer holds).
 *
 * @example Save and look up a record
 * ```ts
 * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const hooks = createWebhooks(kv);
 * const ref = "https://c.example/api/core/v3/webhooks/7";
 * await hooks.save({ id: "h1", tenantId: "t1", entity: { resources: { self: { ref } } } });
 * assert.equal((await hooks.findByID("h1"))?.tenantId, "t1");
 * assert.deepEqual((await hooks.findByWebhookURL(ref)).map((h) => h.id), ["h1"]);
 * assert.equal(await hooks.findByID("nope"), null);
 * kv.close();
 * ```
 */
export function createWebhooks(kv: Deno.Kv, options: WebhooksOptions = {}): Webhooks {
  if (typeof kv !== "object" || kv === null || typeof kv.atomic !== "function") {
    throw new TypeError(`Cannot create webhooks: 'kv' must be a Deno.Kv, got ${describe(kv)}`);
  }
  const fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  if (typeof fetchFn !== "function") {
    throw new TypeError(`Cannot create webhooks: 'fetch' must be a function, got ${describe(fetchFn)}`);
  }
  const timeout = requireNumber(options.timeout ?? 30_000, "timeout", "create webhooks");
  // A timer holds at most 2^31-1 ms: a longer AbortSignal.timeout fires at once, failing every platform call.
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_TIMER_MS) {
    throw new RangeError(
      `Cannot create webhooks: 'timeout' must be a positive number of ms, at most ${MAX_TIMER_MS} ms, got ${timeout}`,
    );
  }
  const communities = createCommunities(kv);
  const newId = monotonicFactory();

  function checkRecord(webhook: WebhookInput, action: string): Webhook {
    if (typeof webhook !== "object" || webhook === null || Array.isArray(webhook)) {
      throw new TypeError(`Cannot ${action}: the webhook must be an object, got ${describe(webhook)}`);
    }
    // KV keys the record (and its tenant index) by these: a lone surrogate would share a key with other ids.
    requireKeyString(webhook.id, "id", action);
    if (webhook.tenantId !== undefined) requireKeyString(webhook.tenantId, "tenantId", action);
    if (webhook.entity !== undefined && (typeof webhook.entity !== "object" || webhook.entity === null)) {
      throw new TypeError(`Cannot ${action}: 'entity' must be an object, got ${describe(webhook.entity)}`);
    }
    return { ...webhook } as Webhook;
  }

  async function findByID(webhookId: string): Promise<Webhook | null> {
    // SPEC.md section 7: an absent id resolves with null.
    if (webhookId === undefined || webhookId === null || webhookId === "") return null;
    requireString(webhookId, "webhookId", "find webhook");
    const found = await unlessKeyTooLarge(
      async () => (await withLockRetry(() => kv.get<Webhook>(webhookKey(webhookId)))).value,
      null,
    );
    // KV keys "a\uD800" and "a\uFFFD" alike (a lone surrogate is written as U+FFFD): only this id's record.
    return found?.id === webhookId ? found : null;
  }

  async function findByWebhookURL(webhookURL: string): Promise<Webhook[]> {
    requireString(webhookURL, "webhookURL", "find webhooks");
    return await recordsByUrl(kv, webhookURL);
  }

  async function findByTenantID(tenantId: string): Promise<Webhook[]> {
    requireString(tenantId, "tenantId", "find webhooks");
    return await recordsUnder(kv, webhookByTenantPrefix(tenantId), (record) => record.tenantId === tenantId);
  }

  const { credentialsFor, contextFor, register, update } = platformOps({
    kv,
    communities,
    fetchFn,
    timeout,
    newId,
    findByWebhookURL,
    findByID,
  });

  return rememberKv<Webhooks>(kv, {
    async save(webhook) {
      // Without `extend`, writeRecord always writes: its result is never null here.
      return (await writeRecord(kv, checkRecord(webhook, "save webhook")))!;
    },

    findByID,
    findByTenantID,
    findByWebhookURL,

    async findWebhookCommunity(webhook) {
      if (typeof webhook !== "object" || webhook === null) {
        throw new TypeError(`Cannot find community: the webhook must be an object, got ${describe(webhook)}`);
      }
      // API.md: the community whose tenantId is the webhook's, or null. A record that `save` took without a
      // tenantId has none.
      const { tenantId } = webhook;
      if (typeof tenantId !== "string" || tenantId === "") return null;
      return await communities.findByTenantID(tenantId);
    },

    findByCommunity(community) {
      // SPEC.md section 7: these three throw synchronously, with these words.
      checkCommunityArgument(community);
      return findByTenantID(community.tenantId);
    },

    async list(given) {
      const listOptions = checkListOptions(given, "list webhooks");
      const limit = pageLimit(listOptions.limit, "list webhooks");
      checkCursor(listOptions.cursor, "list webhooks");
      const tenantId = listOptions.tenantId;
      if (tenantId !== undefined) requireString(tenantId, "tenantId", "list webhooks");
      // A tenant id too long for a KV key names no record: listPage answers an empty page.
      return await listPage(kv, tenantId, limit, listOptions.cursor);
    },

    async migrate(migrateOptions: MigrateOptions = {}) {
      if (typeof migrateOptions !== "object" || migrateOptions === null) {
        throw new TypeError(`Cannot migrate: 'options' must be an object, got ${describe(migrateOptions)}`);
      }
      const onProgress = migrateOptions.onProgress;
      if (onProgress !== undefined && typeof onProgress !== "function") {
        throw new TypeError(`Cannot migrate: 'onProgress' must be a function, got ${describe(onProgress)}`);
      }
      return await migrateIndexes(kv, { onProgress });
    },

    async remove(webhookId) {
      requireString(webhookId, "webhookId", "remove webhook");
      return await removeRecord(kv, webhookId);
    },

    register: register as Webhooks["register"],

    update,

    async unregister(webhook, accessToken, refreshToken, tokenPersistenceFunction) {
      const given = { accessToken, refreshToken, tokenPersistenceFunction } as CredentialOptions;
      validateCredentials(given, "unregister webhook");
      const record = typeof webhook === "string" ? await findByID(webhook) : webhook;
      if (typeof webhook === "string" && record === null) {
        throw new Error(`Cannot unregister webhook: no webhook has the id ${describe(webhook)}`);
      }
      if (typeof webhook === "string") checkStoredRecord(record!, webhook, "unregister webhook");
      if (
        typeof record !== "object" || record === null || typeof record.entity !== "object" || record.entity === null
      ) {
        const what = "it must be a record with an entity or its id";
        throw new TypeError(`Cannot unregister webhook: ${what}, got ${describe(record)}`);
      }
      const community = await communities.findByTenantID(record.tenantId);
      if (community === null) {
        throw new Error(`Cannot unregister webhook: no community has the tenantId ${describe(record.tenantId)}`);
      }
      const ctx = contextFor(
        community,
        credentialsFor(
          community,
          given,
          "Deleting the community webhook",
        ),
        given,
      );
      await platformOperation("unregister", async () => {
        await deleteOnPlatform(ctx, community, record.entity);
        if (typeof record.id === "string" && record.id !== "") await removeRecord(kv, record.id);
      }, community.name);
    },

    async pending(tenantId) {
      requireString(tenantId, "tenantId", "list pending registrations");
      // A tenant id too long for a KV key has none (nothing can be stored under one).
      // No community has a tenant id with a lone surrogate (save refuses it): KV writes one as U+FFFD, so its
      // prefix is another tenant's ("t\uD800" lists "t\uFFFD"'s).
      if (!tenantId.isWellFormed()) return [];
      // An entry edited by hand into junk is passed over.
      return await unlessKeyTooLarge(() => readPendings(kv, tenantId), []);
    },

    async reconcile(community, givenOptions) {
      checkCommunityArgument(community); // the same checks and words as findByCommunity, as a rejection
      const reconcileOptions = givenOptions ?? {};
      if (typeof reconcileOptions !== "object" || Array.isArray(reconcileOptions)) {
        throw new TypeError(`Cannot reconcile: 'options' must be an object, got ${describe(reconcileOptions)}`);
      }
      // A string "false" would be truthy: fix and deleteUnknown delete, so they take booleans only.
      for (const flag of ["fix", "deleteUnknown"] as const) {
        const value = reconcileOptions[flag];
        if (value !== undefined && value !== null && typeof value !== "boolean") {
          throw new TypeError(`Cannot reconcile: '${flag}' must be a boolean, got ${describe(value)}`);
        }
      }
      validateCredentials(reconcileOptions, "reconcile");
      const stored = await communities.findByTenantID(community.tenantId);
      // The stored community has the tokens; a community only given here must bring its own.
      const target = stored ?? (community as Community);
      const ctx = contextFor(
        target,
        credentialsFor(
          target,
          reconcileOptions,
          "Reconciling the community webhooks",
        ),
        reconcileOptions,
      );
      return await platformOperation("reconcile", () =>
        reconcileCommunity({
          kv,
          ctx,
          community: target,
          options: reconcileOptions,
          newId,
          findByTenantID,
          findByWebhookURL,
          writeRecord: (record, extend) => writeRecord(kv, record, extend),
          removeRecord: (id, expected) => removeRecord(kv, id, expected),
          // An orphan that cannot be addressed on the community's own platform (no id, a self URL elsewhere) stays
          // there, and in the report: the token goes nowhere else.
          deleteOnPlatform: async (entity) => {
            if (platformHookUrl(target, entity) !== null) await deleteOnPlatform(ctx, target, entity);
          },
        }), target.name);
    },

    communities,
  });
}

/** SPEC.md section 7's checks of a community argument, with its words. */
function checkCommunityArgument(community: TenantRef): void {
  // SPEC.md says "throws an Error" with these messages: a plain Error, so that
  // a check against `new Error(message)` (name and message) holds.
  if (community === undefined || community === null) throw new Error("community object is required");
  if (typeof community !== "object") throw new Error("community must be an object");
  if (community.tenantId === undefined || community.tenantId === null || community.tenantId === "") {
    throw new Error("community object must contain a tenantId");
  }
  // Argument validation throws here, at once: a tenantId of another type is not left to the lookup's rejection.
  if (typeof community.tenantId !== "string") {
    throw new TypeError(`community object's tenantId must be a string, got ${describe(community.tenantId)}`);
  }
}
