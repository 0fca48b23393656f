/**
 * The platform calls: `register` (one request, a pending entry while it
 * runs), `update`, `unregister`, token renewal shared by concurrent callers,
 * and `reconcile`; the validation of their arguments before any request.
 *
 * @module
 */

export * from "./registration.ts";
export { NO_TOKEN_REASON, platformOps } from "./_register.ts";
export { deleteOnPlatform, platformHookUrl } from "./_hook_url.ts";
export { reconcileCommunity, sameRequest, STALE_AFTER_MS } from "./_reconcile.ts";
export { readPendings } from "./_pending.ts";
export { checkStoredRecord, validateCredentials } from "./_validate.ts";
