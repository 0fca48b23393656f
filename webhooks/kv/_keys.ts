// Every KV key of the module is built here, as a tuple, never by string
// concatenation.

/** Bytes a self URL may take before its index key uses its hash instead. */
const MAX_URL_KEY_BYTES = 1_024;
const encoder = new TextEncoder();

/** Primary key of a webhook record. */
export function webhookKey(id: string): Deno.KvKey {
  return ["webhook", id];
}

/** Prefix of every webhook record. */
export const WEBHOOK_PREFIX: Deno.KvKey = ["webhook"];

/** Pointer index entry: a webhook of a tenant. */
export function webhookByTenantKey(tenantId: string, id: string): Deno.KvKey {
  return ["webhook_by_tenant", tenantId, id];
}

/** Prefix of the pointer index entries of one tenant. */
export function webhookByTenantPrefix(tenantId: string): Deno.KvKey {
  return ["webhook_by_tenant", tenantId];
}

/**
 * The part of a by-URL index key that stands for a self URL: the URL itself,
 * or, when it is too long for a KV key (2048 bytes in all), its SHA-256 digest
 * as bytes. A digest is a `Uint8Array` and a URL a string, so the two never
 * collide; readers compare the full URL of the record anyway.
 */
export async function urlKeyPart(url: string): Promise<string | Uint8Array> {
  const bytes = encoder.encode(url);
  if (bytes.byteLength <= MAX_URL_KEY_BYTES) return url;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** Pointer index entry: a webhook by its own (self) URL. */
export function webhookByUrlKey(urlPart: string | Uint8Array, id: string): Deno.KvKey {
  return ["webhook_by_url", urlPart, id];
}

/** Prefix of the pointer index entries of one self URL. */
export function webhookByUrlPrefix(urlPart: string | Uint8Array): Deno.KvKey {
  return ["webhook_by_url", urlPart];
}

/** An update of a record that sent its PUT and has not yet saved the answer (or died before it could). */
export function updateMarkerKey(recordId: string, updateId: string): Deno.KvKey {
  return ["webhook_update", recordId, updateId];
}

/** Prefix of the update markers of one record. */
export function updateMarkerPrefix(recordId: string): Deno.KvKey {
  return ["webhook_update", recordId];
}

/** An interrupted-or-running registration of a tenant. */
export function pendingKey(tenantId: string, pendingId: string): Deno.KvKey {
  return ["webhook_pending", tenantId, pendingId];
}

/** Prefix of the pending registrations of one tenant. */
export function pendingPrefix(tenantId: string): Deno.KvKey {
  return ["webhook_pending", tenantId];
}

/** Primary key of a community record. */
export function communityKey(tenantId: string): Deno.KvKey {
  return ["community", tenantId];
}

/** Prefix of every community record. */
export const COMMUNITY_PREFIX: Deno.KvKey = ["community"];

/** Unique index: community name to tenant id. */
export function communityByNameKey(name: string): Deno.KvKey {
  return ["community_by_name", name];
}

/**
 * A short lease on a community's token renewal, `{ owner, until }`: the
 * process that holds it renews the stored tokens while others wait for the
 * pair it stores. Written and deleted under a versionstamp check; it expires.
 */
export function communityRenewalKey(tenantId: string): Deno.KvKey {
  return ["community_renewal", tenantId];
}

/**
 * A community's previous client secret after a rotation, with when it was
 * replaced and until when it still verifies postbacks; written in the atomic
 * operation that changes the community's secret, deleted with the community.
 */
export function communitySecretPreviousKey(tenantId: string): Deno.KvKey {
  return ["community_secret_previous", tenantId];
}

/**
 * A postback claim of the receiver for one hook: the header's timestamp, then
 * the hex SHA-256 digest of a verified JiveEXTN header's replay key with the
 * hook's self URL, never the header text. The timestamp comes first so that
 * new claims land at the end of the key space, in the pages just written,
 * not each in a page of its own at random: a KV file writes a third of the
 * bytes per postback.
 */
export function postbackClaimKey(timestamp: number, digest: string): Deno.KvKey {
  return ["webhook_postback_claim", timestamp, digest];
}

/** The most bytes a KV key takes. */
const MAX_KEY_BYTES = 2_048;

/** Bytes of a key in KV's encoding: a string or bytes part is its bytes, one more for each 0x00, and two. */
function keyBytes(key: Deno.KvKey): number {
  let bytes = 0;
  for (const part of key) {
    const raw = typeof part === "string" ? encoder.encode(part) : part instanceof Uint8Array ? part : null;
    bytes += raw === null ? 9 : raw.byteLength + raw.filter((b) => b === 0).length + 2;
  }
  return bytes;
}

/** Whether KV can store under `key` (at most 2048 bytes). */
export function keyFits(key: Deno.KvKey): boolean {
  return keyBytes(key) <= MAX_KEY_BYTES;
}

/**
 * The most bytes in UTF-8 a tenant id may take: the longest key built from one, a hook's entry in the tenant index
 * (`webhookByTenantKey` with a ULID), must fit. A longer one's own record fits, but not its hooks, its pending
 * registrations, its renewal lease or its previous secret.
 */
export const MAX_TENANT_ID_BYTES = MAX_KEY_BYTES - keyBytes(webhookByTenantKey("", "0".repeat(26)));
