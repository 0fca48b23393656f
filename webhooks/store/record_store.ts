/**
 * The store part of `Webhooks`: saving and removing records (each with its
 * index copies, in one atomic operation) and migrating an earlier layout.
 *
 * @module
 */

import type { MigrateReport, WebhookInput } from "../types.ts";
import type { MigrateOptions } from "../options.ts";

/** Saving, removing and migrating webhook records: the store part of {@linkcode Webhooks}. */
export interface WebhookStore {
  /**
   * Saves a webhook record under `["webhook", id]` with its tenant and URL
   * indexes, in one atomic operation. Re-saving moves the index entries.
   *
   * @param webhook The record; `id` must be a non-empty string.
   * @returns The store result.
   * @throws {TypeError} When `id` is not a non-empty string, or it or `tenantId` holds a lone surrogate, which KV
   *   writes as U+FFFD and so would key like another id (nothing stored).
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
}
