// The options of Module A's calls: registration, listing, migration,
// reconcile, credentials and a hook's changes. Exported from the package
// root with the records' types (types.ts).

import type { Community, MigrateReport, TokenPair } from "./types.ts";

/**
 * Receives renewed tokens in place of the community record. The call that renewed awaits what it returns before it
 * sends its request again: a rejection (or a throw) rejects that call with it, and one that never settles holds that
 * call, and no other, for good (the module sets no time limit on it: the refresh token was spent, and the new pair is
 * safe only once stored). Bound a slow store yourself, e.g. with `AbortSignal.timeout`, and reject when it runs out.
 *
 * @example Usage
 * ```ts
 * import type { TokenPair, TokenPersistenceFunction } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const saved: TokenPair[] = [];
 * const persist: TokenPersistenceFunction = (tokens) => saved.push(tokens);
 * persist({ access_token: "a", refresh_token: "r" }, { name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
 * assert.equal(saved.length, 1);
 * ```
 */
export type TokenPersistenceFunction = (
  tokens: TokenPair,
  community: Community,
) => unknown;

/** The options form of `register`. *
 * @example Usage
 * ```ts
 * import type { RegisterOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: RegisterOptions = { community: "Acme", events: ["user_account"], callback: "https://me.example/hook" };
 * assert.equal(options.object, undefined);
 * ```
 */
export interface RegisterOptions {
  /** Name of the community (required). */
  community: string;
  /** Event names (required, SPEC.md section 6). */
  events: string[];
  /** Place URI; required for content events, optional for system events. */
  object?: string;
  /** Absolute http(s) postback URL (required). */
  callback: string;
  /** Access token used in place of the community's own. */
  accessToken?: string;
  /** Refresh token that goes with `accessToken`. */
  refreshToken?: string;
  /** Receives renewed tokens in place of the community record. */
  tokenPersistenceFunction?: TokenPersistenceFunction;
}

/** Options of a paged listing. *
 * @example Usage
 * ```ts
 * import type { ListOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: ListOptions = { limit: 10 };
 * assert.equal(options.cursor, undefined);
 * ```
 */
export interface ListOptions {
  /** Cursor of the page to read, from the previous page. */
  cursor?: string;
  /** Most entries per page (1 to 1000, default 100). */
  limit?: number;
}

/** Options of `Webhooks.list`. *
 * @example Usage
 * ```ts
 * import type { WebhookListOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: WebhookListOptions = { tenantId: "t1", limit: 10 };
 * assert.equal(options.tenantId, "t1");
 * ```
 */
export interface WebhookListOptions extends ListOptions {
  /** Only the webhooks of this tenant. */
  tenantId?: string;
}

/** Options of `Webhooks.migrate`. *
 * @example Usage
 * ```ts
 * import type { MigrateOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const seen: number[] = [];
 * const options: MigrateOptions = { onProgress: (p) => void seen.push(p.scanned) };
 * options.onProgress?.({ scanned: 2, migrated: 2, removed: 0 });
 * assert.deepEqual(seen, [2]);
 * ```
 */
export interface MigrateOptions {
  /** Called after each page of index entries (500), with the counts so far. */
  onProgress?: (progress: MigrateReport) => void;
}

/** Options of `reconcile`. *
 * @example Usage
 * ```ts
 * import type { ReconcileOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: ReconcileOptions = { fix: true, staleAfter: 60_000 };
 * assert.equal(options.deleteUnknown, undefined);
 * ```
 */
export interface ReconcileOptions {
  /**
   * Apply the fixes: adopt explained orphans, remove dangling records, bring
   * records older than their hook level (default `false`: only report).
   */
  fix?: boolean;
  /** With `fix`, also delete orphans on the platform that nothing explains. */
  deleteUnknown?: boolean;
  /** Age in ms after which a pending entry counts as interrupted (default 60000). */
  staleAfter?: number;
  /** Access token used in place of the community's own. */
  accessToken?: string;
  /** Refresh token that goes with `accessToken`. */
  refreshToken?: string;
  /** Receives renewed tokens in place of the community record. */
  tokenPersistenceFunction?: TokenPersistenceFunction;
}

/** Credentials given to one platform operation in place of the community's own. */
export interface CredentialOptions {
  /** Access token used in place of the community's own. */
  accessToken?: string;
  /** Refresh token that goes with `accessToken`. */
  refreshToken?: string;
  /** Receives renewed tokens in place of the community record. */
  tokenPersistenceFunction?: TokenPersistenceFunction;
}

/** What `Webhooks.update` changes of a hook; what is left out keeps its value. *
 * @example Usage
 * ```ts
 * import type { WebhookChanges } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const pause: WebhookChanges = { enabled: false };
 * assert.equal(pause.events, undefined);
 * ```
 */
export interface WebhookChanges {
  /** Whether the platform posts the hook's events. */
  enabled?: boolean;
  /** The events, replacing the hook's (system and content events cannot be mixed). */
  events?: string[];
  /** The place URI of content events; `null` for system events. */
  object?: string | null;
  /** The callback URL. */
  callback?: string;
}
