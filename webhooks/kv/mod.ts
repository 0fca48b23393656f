/**
 * Module A's KV plumbing, shared by the store, the platform calls and the
 * receiver: the key builders (every key of the package is built here), the
 * commit that retries on a lost check or a locked file, batched reads, key
 * ids for the group commit, and the KV behind a store. `retryWhileLocked` is
 * public.
 *
 * @module
 */

export * from "./kv_retry.ts";
export {
  commitWithRetry,
  getManyBatched,
  listAll,
  MAX_VALUE_BYTES,
  sizeError,
  unlessKeyTooLarge,
  unstorableError,
  withLockRetry,
} from "./_kv.ts";
export {
  COMMUNITY_PREFIX,
  communityByNameKey,
  communityKey,
  communityRenewalKey,
  communitySecretPreviousKey,
  keyFits,
  MAX_TENANT_ID_BYTES,
  pendingKey,
  pendingPrefix,
  postbackClaimKey,
  updateMarkerKey,
  updateMarkerPrefix,
  urlKeyPart,
  WEBHOOK_PREFIX,
  webhookByTenantKey,
  webhookByTenantPrefix,
  webhookByUrlKey,
  webhookByUrlPrefix,
  webhookKey,
} from "./_keys.ts";
export { anyKeyId, keyId, ownKeyId } from "./_key_id.ts";
export { kvOf, rememberKv } from "./_kv_of.ts";
