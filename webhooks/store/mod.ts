/**
 * The record and community store: records `{ id, tenantId, entity }` with
 * their tenant and URL indexes, the lookups, `migrate()` from the first
 * layout, and the community store (unique names and tenant ids, secret
 * rotation).
 *
 * @module
 */

export * from "./record_store.ts";
export * from "./lookups.ts";
export * from "./communities.ts";
export { createCommunities } from "./_community_store.ts";
export { listPage, migrateIndexes, recordsByUrl, recordsUnder, removeRecord, selfRef, writeRecord } from "./_store.ts";
export { communityDamage, type CommunityEntry, listCommunityEntries } from "./_community_entries.ts";
export {
  hookDamage,
  type HookEntry,
  hookEntryDamage,
  hookEntryDamageAt,
  isCellText,
  listHookEntries,
} from "./_hook_entries.ts";
export { listTenantHookEntries } from "./_tenant_hook_entries.ts";
