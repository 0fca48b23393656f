// The KV layout of Module A's records as the benchmarks write and
// read it raw (API.md, "Indexes and their data layout"): written here from
// that description, since the module's key builders are private to it.

/** Primary key of a record. */
export function webhookKey(id: string): Deno.KvKey {
  return ["webhook", id];
}

/** Prefix of every record. */
export const WEBHOOK_PREFIX: Deno.KvKey = ["webhook"];

/** Index entry of a record by tenant (holds a copy of the record). */
export function webhookByTenantKey(tenantId: string, id: string): Deno.KvKey {
  return ["webhook_by_tenant", tenantId, id];
}

/** Prefix of a tenant's index entries. */
export function webhookByTenantPrefix(tenantId: string): Deno.KvKey {
  return ["webhook_by_tenant", tenantId];
}

/** Index entry of a record by its self URL (URLs up to 1024 bytes; holds a copy of the record). */
export function webhookByUrlKey(url: string, id: string): Deno.KvKey {
  return ["webhook_by_url", url, id];
}

/** Prefix of a self URL's index entries. */
export function webhookByUrlPrefix(url: string): Deno.KvKey {
  return ["webhook_by_url", url];
}

/** A pending registration's key. */
export function pendingKey(tenantId: string, id: string): Deno.KvKey {
  return ["webhook_pending", tenantId, id];
}

/** A community record's key. */
export function communityKey(tenantId: string): Deno.KvKey {
  return ["community", tenantId];
}

/** The unique index of community names. */
export function communityByNameKey(name: string): Deno.KvKey {
  return ["community_by_name", name];
}
