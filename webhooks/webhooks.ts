/**
 * The webhook store and the platform operations of Module A.
 *
 * @module
 */

import { monotonicFactory } from "ulid";
import { pendingPrefix, webhookByTenantPrefix, webhookKey } from "./_keys.ts";
import { listAll, withLockRetry } from "./_kv.ts";
import { deleteOnPlatform, platformOps } from "./_register.ts";
import { listPage, migrateIndexes, recordsByUrl, recordsUnder, removeRecord, writeRecord } from "./_store.ts";
import { rememberKv } from "./_kv_of.ts";
import { reconcileCommunity } from "./_reconcile.ts";
import { validateCredentials } from "./_validate.ts";
import { describe, pageLimit, requireString } from "./_util.ts";
import { type Communities, createCommunities } from "./communities.ts";
import type {
  Community,
  MigrateReport,
  Page,
  PendingRegistration,
  ReconcileReport,
  RegistrationResponse,
  TenantRef,
  Webhook,
  WebhookInput,
} from "./types.ts";
import type {
  CredentialOptions,
  MigrateOptions,
  ReconcileOptions,
  RegisterOptions,
  TokenPersistenceFunction,
  WebhookChanges,
  WebhookListOptions,
} from "./options.ts";

/** Options of {@linkcode createWebhooks}. */
export interface WebhooksOptions {
  /** The `fetch` used for platform calls (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** Milliseconds a platform call may take before it fails (default 30000). */
  timeout?: number;
}

/** Module A: webhook records in Deno KV and their registration on the platform. */
export interface Webhooks {
  /**
   * Saves a webhook record under `["webhook", id]` with its tenant and URL
   * indexes, in one atomic operation. Re-saving moves the index entries.
   *
   * @param webhook The record; `id` must be a non-empty string.
   * @returns The store result.
   * @throws {TypeError} When `id` is not a non-empty string (nothing stored).
   * @throws {RangeError} When the record is too large for one KV value (nothing stored).
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * const result = await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
   * assert.equal(result.ok, true);
   * kv.close();
   * ```
   */
  save(webhook: WebhookInput): Promise<Deno.KvCommitResult>;
  /**
   * Finds a record by id.
   *
   * @param webhookId The record's id.
   * @returns The record, or `null` when none has that id (or no id is given).
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
   * assert.equal((await hooks.findByID("h1"))?.id, "h1");
   * assert.equal(await hooks.findByID("h2"), null);
   * kv.close();
   * ```
   */
  findByID(webhookId: string): Promise<Webhook | null>;
  /**
   * Finds the records of a tenant.
   *
   * @param tenantId The tenant id.
   * @returns The records, oldest id first; `[]` when none.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
   * assert.deepEqual((await hooks.findByTenantID("t1")).map((h) => h.id), ["h1"]);
   * assert.deepEqual(await hooks.findByTenantID("t2"), []);
   * kv.close();
   * ```
   */
  findByTenantID(tenantId: string): Promise<Webhook[]>;
  /**
   * Finds the records whose `entity.resources.self.ref` is the URL.
   *
   * @param webhookURL The hook's own URL.
   * @returns The records; `[]` when none.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * const ref = "https://c.example/api/core/v3/webhooks/7";
   * await hooks.save({ id: "h1", tenantId: "t1", entity: { resources: { self: { ref } } } });
   * assert.deepEqual((await hooks.findByWebhookURL(ref)).map((h) => h.id), ["h1"]);
   * kv.close();
   * ```
   */
  findByWebhookURL(webhookURL: string): Promise<Webhook[]>;
  /**
   * Finds the community a record belongs to, by its `tenantId`.
   *
   * @param webhook The record.
   * @returns The community, or `null` when none has that tenant id.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * const community = await hooks.findWebhookCommunity({ id: "h1", tenantId: "t1", entity: {} });
   * assert.equal(community?.name, "Acme");
   * kv.close();
   * ```
   */
  findWebhookCommunity(webhook: TenantRef): Promise<Community | null>;
  /**
   * Finds the records of a community. Bad arguments throw synchronously.
   *
   * @param community An object with a `tenantId`.
   * @returns The records; `[]` when none.
   * @throws {Error} `community object is required`, `community must be an object`
   * or `community object must contain a tenantId`.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
   * const found = await hooks.findByCommunity({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
   * assert.equal(found.length, 1);
   * assert.throws(() => hooks.findByCommunity(undefined as never), { message: "community object is required" });
   * kv.close();
   * ```
   */
  findByCommunity(community: TenantRef): Promise<Webhook[]>;
  /**
   * Lists records a page at a time, of every tenant or of one.
   *
   * @param options `tenantId`, `cursor` from the previous page, `limit` (default 100).
   * @returns A page `{ values, cursor }`; `cursor` is `""` on the last page.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * for (const id of ["a", "b", "c"]) await hooks.save({ id, tenantId: "t1", entity: {} });
   * const first = await hooks.list({ limit: 2 });
   * assert.deepEqual(first.values.map((h) => h.id), ["a", "b"]);
   * const rest = await hooks.list({ limit: 2, cursor: first.cursor });
   * assert.deepEqual(rest.values.map((h) => h.id), ["c"]);
   * kv.close();
   * ```
   */
  list(options?: WebhookListOptions): Promise<Page<Webhook>>;
  /**
   * Moves a KV written by the earlier layout (index entries that hold the
   * record's id) to today's (index entries that hold a copy of the record,
   * so that a lookup is one prefix list). Lookups answer correctly before,
   * during and after it; `createWebhooks` never calls it by itself.
   *
   * It works a few entries per atomic operation, each guarded by the
   * versionstamps of the entry and of its record, so it is safe while
   * readers and writers run; it skips what is done already, so running it
   * again, or after a crash at any point, finishes the work and changes
   * nothing more.
   *
   * @param options `onProgress`, called after each page of 500 index entries.
   * @returns The counts: index entries scanned, migrated, and stale ones removed.
   * @throws {TypeError} When `options` or `onProgress` is of the wrong type.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
   * // A KV written by today's layout has nothing to migrate.
   * assert.deepEqual(await hooks.migrate(), { scanned: 1, migrated: 0, removed: 0 });
   * kv.close();
   * ```
   */
  migrate(options?: MigrateOptions): Promise<MigrateReport>;
  /**
   * Deletes a local record and its index entries; the platform is not called.
   *
   * @param webhookId The record's id.
   * @returns `true` when a record was deleted.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
   * assert.equal(await hooks.remove("h1"), true);
   * assert.equal(await hooks.findByID("h1"), null);
   * kv.close();
   * ```
   */
  remove(webhookId: string): Promise<boolean>;
  /**
   * Registers a webhook on the platform for the named community and saves its
   * record (SPEC.md 4.2).
   *
   * @returns The platform's response `{ status, headers, entity }`.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * // A stand-in for the platform; in real use leave `fetch` out.
   * const ref = "https://c.example/api/core/v3/webhooks/7";
   * const platform: typeof fetch = (_input, init) =>
   *   Promise.resolve(
   *     init?.method === "DELETE" ? new Response(null, { status: 204 })
   *     : init?.method === "GET" ? Response.json({ list: [{ id: "7", resources: { self: { ref } } }], links: {} })
   *     : Response.json({ id: "7", resources: { self: { ref } }, ...JSON.parse(String(init?.body)) }),
   *   );
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv, { fetch: platform });
   * const oauth = { access_token: "a", refresh_token: "r" };
   * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example", oauth });
   * const response = await hooks.register("Acme", ["document"], "https://c.example/places/1", "https://me.example/hook");
   * assert.equal(response.entity.id, "7");
   * assert.equal((await hooks.findByWebhookURL(ref))[0].tenantId, "t1");
   * kv.close();
   * ```
   */
  register(
    jiveCommunity: string,
    events: string[],
    object: string | undefined | null,
    webhookCallbackURL: string,
    accessToken?: string | null,
    refreshToken?: string | null,
    tokenPersistenceFunction?: TokenPersistenceFunction | null,
  ): Promise<RegistrationResponse>;
  /**
   * Registers a webhook: the options form of the positional call.
   *
   * @returns The platform's response `{ status, headers, entity }`.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * // A stand-in for the platform; in real use leave `fetch` out.
   * const ref = "https://c.example/api/core/v3/webhooks/7";
   * const platform: typeof fetch = (_input, init) =>
   *   Promise.resolve(
   *     init?.method === "DELETE" ? new Response(null, { status: 204 })
   *     : init?.method === "GET" ? Response.json({ list: [{ id: "7", resources: { self: { ref } } }], links: {} })
   *     : Response.json({ id: "7", resources: { self: { ref } }, ...JSON.parse(String(init?.body)) }),
   *   );
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv, { fetch: platform });
   * const oauth = { access_token: "a", refresh_token: "r" };
   * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example", oauth });
   * const response = await hooks.register({ community: "Acme", events: ["user_account"], callback: "https://me.example/hook" });
   * assert.equal(response.status, 200);
   * assert.equal((await hooks.findByTenantID("t1")).length, 1);
   * kv.close();
   * ```
   */
  register(options: RegisterOptions): Promise<RegistrationResponse>;
  /**
   * Deletes the hook on the platform (`DELETE {base}/api/core/v3/webhooks/{entity.id}`),
   * then the local record. A hook the platform no longer has (404) counts as deleted.
   *
   * @param webhook The record, or its id.
   * @returns Once both are gone.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * // A stand-in for the platform; in real use leave `fetch` out.
   * const ref = "https://c.example/api/core/v3/webhooks/7";
   * const platform: typeof fetch = (_input, init) =>
   *   Promise.resolve(
   *     init?.method === "DELETE" ? new Response(null, { status: 204 })
   *     : init?.method === "GET" ? Response.json({ list: [{ id: "7", resources: { self: { ref } } }], links: {} })
   *     : Response.json({ id: "7", resources: { self: { ref } }, ...JSON.parse(String(init?.body)) }),
   *   );
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv, { fetch: platform });
   * const oauth = { access_token: "a", refresh_token: "r" };
   * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example", oauth });
   * await hooks.register({ community: "Acme", events: ["user_account"], callback: "https://me.example/hook" });
   * const [record] = await hooks.findByTenantID("t1");
   * await hooks.unregister(record);
   * assert.equal(await hooks.findByID(record.id), null);
   * kv.close();
   * ```
   */
  unregister(
    webhook: Webhook | string,
    accessToken?: string | null,
    refreshToken?: string | null,
    tokenPersistenceFunction?: TokenPersistenceFunction | null,
  ): Promise<void>;
  /**
   * Changes a registered hook on the platform (its `PUT`): enables or
   * disables it, or replaces its events, object or callback; then saves the
   * platform's answer as the record's entity. The hook as it will be is
   * checked as a registration is, before any request.
   *
   * @param webhook The record, or its id.
   * @param changes What to change; what is left out keeps its value.
   * @param options Credentials in place of the community's own.
   * @returns The record as saved.
   * @throws {TypeError} When an argument, or the hook as it would be, is not valid.
   * @throws {Error} When no record has the id, or its community is unknown.
   *
   * @example Disable a hook
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * // A stand-in for the platform that echoes what it is sent; in real use leave `fetch` out.
   * const ref = "https://c.example/api/core/v3/webhooks/7";
   * const platform: typeof fetch = (_input, init) =>
   *   Promise.resolve(Response.json({ id: "7", resources: { self: { ref } }, ...JSON.parse(String(init?.body)) }));
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv, { fetch: platform });
   * const oauth = { access_token: "a", refresh_token: "r" };
   * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example", oauth });
   * await hooks.register({ community: "Acme", events: ["user_account"], callback: "https://me.example/hook" });
   * const [record] = await hooks.findByTenantID("t1");
   * const paused = await hooks.update(record, { enabled: false });
   * assert.equal(paused.entity.enabled, false);
   * assert.equal((await hooks.findByID(record.id))?.entity.enabled, false);
   * kv.close();
   * ```
   */
  update(webhook: Webhook | string, changes: WebhookChanges, options?: CredentialOptions): Promise<Webhook>;
  /**
   * Lists the registrations of a tenant that started and have not finished:
   * running now, or interrupted by a crash.
   *
   * @param tenantId The tenant id.
   * @returns The pending entries, oldest first.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv);
   * assert.deepEqual(await hooks.pending("t1"), []);
   * kv.close();
   * ```
   */
  pending(tenantId: string): Promise<PendingRegistration[]>;
  /**
   * Compares the platform's hooks of a community with the local records and
   * pending entries, and with `fix` repairs the drift.
   *
   * @param community An object with a `tenantId` (the stored community is used).
   * @param options `fix`, `deleteUnknown`, `staleAfter` and credentials.
   * @returns The report of the state found before fixing.
   *
   * @example Usage
   * ```ts
   * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
   * import assert from "node:assert/strict";
   *
   * // A stand-in for the platform; in real use leave `fetch` out.
   * const ref = "https://c.example/api/core/v3/webhooks/7";
   * const platform: typeof fetch = (_input, init) =>
   *   Promise.resolve(
   *     init?.method === "DELETE" ? new Response(null, { status: 204 })
   *     : init?.method === "GET" ? Response.json({ list: [{ id: "7", resources: { self: { ref } } }], links: {} })
   *     : Response.json({ id: "7", resources: { self: { ref } }, ...JSON.parse(String(init?.body)) }),
   *   );
   * const kv = await Deno.openKv(":memory:");
   * const hooks = createWebhooks(kv, { fetch: platform });
   * const oauth = { access_token: "a", refresh_token: "r" };
   * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example", oauth });
   * const community = (await hooks.communities.findByName("Acme"))!;
   * const report = await hooks.reconcile(community);
   * assert.equal(report.orphans.length, 1); // on the platform, not here
   * assert.equal(report.orphans[0].pending, null);
   * kv.close();
   * ```
   */
  reconcile(community: TenantRef, options?: ReconcileOptions): Promise<ReconcileReport>;
  /** The community store (collection `community`). */
  readonly communities: Communities;
}

/** SPEC.md 4.2 rule 3, in its words. */
/**
 * Makes the Module A store over a KV database.
 *
 * @param kv The KV database: `await Deno.openKv(":memory:")`, a file or a KV Connect URL.
 * @param options `fetch` for platform calls and the call `timeout` in ms.
 * @returns The {@linkcode Webhooks} store.
 * @throws {TypeError} When `kv` or an option is of the wrong type.
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
  const timeout = options.timeout ?? 30_000;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new RangeError(`Cannot create webhooks: 'timeout' must be a positive number of ms, got ${timeout}`);
  }
  const communities = createCommunities(kv);
  const newId = monotonicFactory();

  function checkRecord(webhook: WebhookInput, action: string): Webhook {
    if (typeof webhook !== "object" || webhook === null || Array.isArray(webhook)) {
      throw new TypeError(`Cannot ${action}: the webhook must be an object, got ${describe(webhook)}`);
    }
    requireString(webhook.id, "id", action);
    if (webhook.tenantId !== undefined) requireString(webhook.tenantId, "tenantId", action);
    if (webhook.entity !== undefined && (typeof webhook.entity !== "object" || webhook.entity === null)) {
      throw new TypeError(`Cannot ${action}: 'entity' must be an object, got ${describe(webhook.entity)}`);
    }
    return { ...webhook } as Webhook;
  }

  async function findByID(webhookId: string): Promise<Webhook | null> {
    // SPEC.md section 7: an absent id resolves with null.
    if (webhookId === undefined || webhookId === null || webhookId === "") return null;
    requireString(webhookId, "webhookId", "find webhook");
    return (await withLockRetry(() => kv.get<Webhook>(webhookKey(webhookId)))).value;
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
      return await communities.findByTenantID(webhook.tenantId);
    },

    findByCommunity(community) {
      // SPEC.md section 7: these three throw synchronously, with these words.
      checkCommunityArgument(community);
      return findByTenantID(community.tenantId);
    },

    async list(listOptions = {}) {
      const limit = pageLimit(listOptions.limit);
      const tenantId = listOptions.tenantId;
      if (tenantId !== undefined) requireString(tenantId, "tenantId", "list webhooks");
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
      if (record === null) {
        throw new Error(`Cannot unregister webhook: no webhook has the id ${describe(webhook)}`);
      }
      if (typeof record !== "object" || typeof record.entity !== "object" || record.entity === null) {
        throw new TypeError(`Cannot unregister webhook: it must be a record with an entity, got ${describe(record)}`);
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
          "Deleting the community webhook failed because no access token is associated with the community and none was provided explicitly",
        ),
        given,
      );
      await deleteOnPlatform(ctx, community, record.entity);
      if (typeof record.id === "string" && record.id !== "") await removeRecord(kv, record.id);
    },

    async pending(tenantId) {
      requireString(tenantId, "tenantId", "list pending registrations");
      return (await listAll<PendingRegistration>(kv, pendingPrefix(tenantId))).map((entry) => entry.value);
    },

    async reconcile(community, reconcileOptions = {}) {
      checkCommunityArgument(community); // the same checks and words as findByCommunity, as a rejection
      validateCredentials(reconcileOptions, "reconcile");
      const stored = await communities.findByTenantID(community.tenantId);
      // The stored community has the tokens; a community only given here must bring its own.
      const target = stored ?? (community as Community);
      const ctx = contextFor(
        target,
        credentialsFor(
          target,
          reconcileOptions,
          "Reconciling the community webhooks failed because no access token is associated with the community and none was provided explicitly",
        ),
        reconcileOptions,
      );
      return await reconcileCommunity({
        kv,
        ctx,
        community: target,
        options: reconcileOptions,
        newId,
        findByTenantID,
        findByWebhookURL,
        writeRecord: (record, extend) => writeRecord(kv, record, extend),
        removeRecord: (id, expected) => removeRecord(kv, id, expected),
        deleteOnPlatform: (entity) => deleteOnPlatform(ctx, target, entity),
      });
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
}
