/**
 * The records of Module A: communities, webhooks, pages, registrations and the reconcile report. The options of its
 * calls are in options.ts.
 *
 * @module
 */

/** The OAuth token pair of a community (SPEC.md 2.5). *
 * @example Usage
 * ```ts
 * import type { TokenPair } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const tokens: TokenPair = { access_token: "a", refresh_token: "r" };
 * assert.equal(tokens.access_token, "a");
 * ```
 */
export interface TokenPair {
  /** Bearer token sent to the platform. */
  access_token: string;
  /** Token that renews the access token. */
  refresh_token: string;
}

/** A community of the platform (collection `community`). *
 * @example Usage
 * ```ts
 * import type { Community } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const community: Community = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example" };
 * assert.equal(community.tenantId, "t1");
 * ```
 */
export interface Community {
  /** Unique name, the key of `register`'s community lookup. */
  name: string;
  /** Unique tenant id of the community. */
  tenantId: string;
  /** Address of the community, for example `https://community.example.com`; needed for platform calls. */
  baseUrl?: string;
  /** OAuth client id: a renewal names it and authenticates with it and the secret (without it, it asks as a public client). */
  clientId?: string;
  /** OAuth client secret: a renewal's Basic credentials (with `clientId`), and the key that verifies postbacks. */
  clientSecret?: string;
  /** The community's tokens. */
  oauth?: TokenPair;
  /** When the module last stored renewed tokens, as an ISO 8601 date. */
  renewedAt?: string;
  /** Other fields are kept as given. */
  [field: string]: unknown;
}

/**
 * The last rotation of a community's client secret, without the secret:
 * when it was replaced and until when the previous one still verifies
 * postbacks (ISO 8601 dates).
 *
 * @example Usage
 * ```ts
 * import type { SecretRotation } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const rotation: SecretRotation = { rotatedAt: "2026-01-01T00:00:00.000Z", validUntil: "2026-01-01T00:06:30.000Z" };
 * assert.equal(Date.parse(rotation.validUntil) - Date.parse(rotation.rotatedAt), 390_000);
 * ```
 */
export interface SecretRotation {
  /** When `save` replaced the client secret. */
  rotatedAt: string;
  /** The last moment a postback signed with the previous secret is accepted: `rotatedAt` + 6 min 30 s. */
  validUntil: string;
}

/** The platform's webhook entity; only `resources.self.ref` is relied upon. *
 * @example Usage
 * ```ts
 * import type { WebhookEntity } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const entity: WebhookEntity = { id: "7", resources: { self: { ref: "https://c.example/api/core/v3/webhooks/7" } } };
 * assert.equal(entity.resources?.self?.ref?.endsWith("/7"), true);
 * ```
 */
export interface WebhookEntity {
  /** The platform's id of the hook. */
  id?: string;
  /** Links of the hook; `self.ref` is the hook's own URL. */
  resources?: { self?: { ref?: string; allowed?: string[] } };
  /** Other fields of the platform's entity. */
  [field: string]: unknown;
}

/** A webhook record (collection `webhook`, SPEC.md 2.1). *
 * @example Usage
 * ```ts
 * import type { Webhook } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const webhook: Webhook = { id: "01J0000000000000000000000", tenantId: "t1", entity: {} };
 * assert.equal(webhook.tenantId, "t1");
 * ```
 */
export interface Webhook {
  /** Unique id (a ULID when `register` made it); the store key. */
  id: string;
  /** Tenant id of the owning community. */
  tenantId: string;
  /** The `entity` of the platform's registration response. */
  entity: WebhookEntity;
  /** Other fields are kept as given. */
  [field: string]: unknown;
}

/**
 * What `save` takes: an object with an `id` (SPEC.md 4.2); `tenantId` and
 * `entity` are indexed when present.
 *
 * @example Usage
 * ```ts
 * import type { WebhookInput } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const input: WebhookInput = { id: "h1" };
 * assert.equal(input.tenantId, undefined);
 * ```
 */
export interface WebhookInput {
  /** Unique id; the store key. */
  id: string;
  /** Tenant id of the owning community. */
  tenantId?: string;
  /** The platform's entity of the hook. */
  entity?: WebhookEntity;
  /** Other fields are kept as given. */
  [field: string]: unknown;
}

/**
 * Anything that names a tenant: a community or a webhook record.
 *
 * @example Usage
 * ```ts
 * import type { TenantRef } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const ref: TenantRef = { tenantId: "t1" };
 * assert.equal(ref.tenantId, "t1");
 * ```
 */
export interface TenantRef {
  /** The tenant id. */
  tenantId: string;
  /** Other fields. */
  [field: string]: unknown;
}

/** What `register` resolves with (SPEC.md 2.4). *
 * @example Usage
 * ```ts
 * import type { RegistrationResponse } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const response: RegistrationResponse = { status: 200, headers: {}, entity: { id: "7" } };
 * assert.equal(response.entity.id, "7");
 * ```
 */
export interface RegistrationResponse {
  /** HTTP status of the platform's answer. */
  status: number;
  /** Headers of the platform's answer. */
  headers: Record<string, string>;
  /** The webhook entity the platform created. */
  entity: WebhookEntity;
}

/** A page of a listing. *
 * @example Usage
 * ```ts
 * import type { Page } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const page: Page<string> = { values: ["a"], cursor: "" };
 * assert.equal(page.cursor, "");
 * ```
 */
export interface Page<T> {
  /** The entries of this page. */
  values: T[];
  /** Pass back to get the next page; `""` when there is none. */
  cursor: string;
}

/** What `Webhooks.migrate` did: index entries seen, turned into copies, and stale ones deleted. *
 * @example Usage
 * ```ts
 * import type { MigrateReport } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const report: MigrateReport = { scanned: 4, migrated: 4, removed: 0 };
 * assert.equal(report.scanned - report.migrated - report.removed, 0);
 * ```
 */
export interface MigrateReport {
  /** Index entries seen (both indexes). */
  scanned: number;
  /** Pointer entries of the earlier layout turned into copies of their record. */
  migrated: number;
  /** Pointer entries deleted: their record was gone, or no longer indexed there. */
  removed: number;
}

/** A registration that was started: written before the platform call. *
 * @example Usage
 * ```ts
 * import type { PendingRegistration } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const pending: PendingRegistration = { id: "p", tenantId: "t1", community: "Acme", events: ["user_account"], callback: "https://me.example/hook", startedAt: 0 };
 * assert.equal(pending.object, undefined);
 * ```
 */
export interface PendingRegistration {
  /** Id of the pending entry (a ULID). */
  id: string;
  /** Tenant id of the community. */
  tenantId: string;
  /** Name of the community. */
  community: string;
  /** Events asked for. */
  events: string[];
  /** Object asked for, if any. */
  object?: string;
  /** Callback asked for. */
  callback: string;
  /** When the registration started, in ms since the epoch. */
  startedAt: number;
}

/** A platform hook that no local record knows. *
 * @example Usage
 * ```ts
 * import type { Orphan } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const orphan: Orphan = { entity: { id: "7" }, pending: null };
 * assert.equal(orphan.pending, null);
 * ```
 */
export interface Orphan {
  /** The platform's entity of the hook. */
  entity: WebhookEntity;
  /** The interrupted registration that explains it, or `null`. */
  pending: PendingRegistration | null;
}

/** The drift between the platform and the local records of one community. *
 * @example Usage
 * ```ts
 * import type { ReconcileReport } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const report = { matched: [], orphans: [], dangling: [], abandoned: [] } as ReconcileReport;
 * assert.equal(report.orphans.length, 0);
 * ```
 */
export interface ReconcileReport {
  /** Local records whose hook the platform has. */
  matched: Webhook[];
  /** Platform hooks with no local record. */
  orphans: Orphan[];
  /** Local records whose hook the platform no longer has. */
  dangling: Webhook[];
  /**
   * Stale pending registrations that left no hook on the platform. Not
   * enumerable, so that the report compares equal to API.md's
   * `{ matched, orphans, dangling }`.
   */
  readonly abandoned: PendingRegistration[];
  /**
   * Matched records whose events, object, callback or state differ from their hook on the platform (an update that
   * died after the platform took it), each with that hook; `fix` saves the hook's fields into them. Not enumerable;
   * absent from a report made by hand.
   */
  readonly drifted?: { record: Webhook; hook: WebhookEntity; fields: DriftField[] }[];
}

/**
 * A field of a hook that `update()` sets, as a reconcile report names those in which a record and its hook differ.
 *
 * @example Usage
 * ```ts
 * import type { DriftField } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const field: DriftField = "callback";
 * assert.equal(field, "callback");
 * ```
 */
export type DriftField = "events" | "object" | "callback" | "enabled";
