/**
 * The platform part of `Webhooks`: registering, updating and unregistering
 * hooks, the registrations in progress, and reconciling with the platform.
 *
 * @module
 */

import type { PendingRegistration, ReconcileReport, RegistrationResponse, TenantRef, Webhook } from "../types.ts";
import type {
  CredentialOptions,
  ReconcileOptions,
  RegisterOptions,
  TokenPersistenceFunction,
  WebhookChanges,
} from "../options.ts";

/** Registering webhooks on the platform and keeping records in step with it: the platform part of {@linkcode Webhooks}. */
export interface WebhookRegistration {
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
   * checked as a registration is, before any request. When the record
   * cannot be saved, the hook is put back on the platform as the record has
   * it, and the save's error is thrown.
   *
   * @param webhook The record, or its id.
   * @param changes What to change; what is left out keeps its value.
   * @param options Credentials in place of the community's own (`null` counts as none).
   * @returns The record as saved.
   * @throws {TypeError} When an argument, or the hook as it would be, is not valid.
   * @throws {RangeError} When the record's id (one saved by hand) is too long for the KV key of its update marker
   *   (the id and a UUID, 2 KiB in all); nothing is sent or written.
   * @throws {Error} When no record has the id, its community is unknown, or the record was removed while the
   * platform answered (it is not brought back).
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
   * @returns The pending entries, oldest first; none for a tenant id with a lone surrogate or too long for a KV key
   * (no community has one).
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
   * @throws {TypeError} When `fix` or `deleteUnknown` is given and is not a boolean (a string "false" would delete).
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
}
