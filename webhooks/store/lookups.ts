/**
 * The lookup part of `Webhooks`: a record by id, by tenant, by its own URL,
 * its community, and paged lists.
 *
 * @module
 */

import type { Community, Page, TenantRef, Webhook } from "../types.ts";
import type { WebhookListOptions } from "../options.ts";

/** Finding webhook records: the lookup part of {@linkcode Webhooks}. */
export interface WebhookLookups {
  /**
   * Finds a record by id.
   *
   * @param webhookId The record's id.
   * @returns The record, or `null` when none has that id (or no id is given,
   *   or one too long for a KV key, which no record can have).
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
   * @returns The community, or `null` when none has that tenant id (or the record has none).
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
   * @param options `tenantId`, `cursor` from the previous page (absent, `""` or `null` reads the first page), `limit`,
   *   an integer from 1 to 1000 (default 100).
   * @returns A page `{ values, cursor }`; `cursor` is `""` on the last page (an empty one for a tenant id too long
   *   for a KV key, which no record can have).
   * @throws {TypeError} When `options` is not an object (`null` reads the first page), naming `options`.
   * @throws {TypeError} When `limit` is not a number (`"10"`, `null`), naming `limit`; nothing is read.
   * @throws {RangeError} When `limit` is a number but not an integer from 1 to 1000; nothing is read.
   * @throws {TypeError} When `cursor` is not one that a page of this list (the same `tenantId` or none) gave
   *   (nothing is read); a cursor of an earlier version, without its tag, is refused too: start again from page one.
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
}
