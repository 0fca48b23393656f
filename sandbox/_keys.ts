/**
 * KV keys of the sandbox community, built in one place. Every key starts
 * with `"sandbox"`.
 *
 * @module
 */

/** The first part of every sandbox key. */
export const ROOT = "sandbox";

/** Which OAuth client a key or record belongs to. */
export type ClientKind = "community" | "console";

/** `["sandbox", "client", kind]`: an OAuth client's id and secret. */
export function clientKey(kind: ClientKind): Deno.KvKey {
  return [ROOT, "client", kind];
}

/** `["sandbox", "redirect_uri", kind, sha256(uri)]`: a redirect URI registered for a client. */
export function redirectUriKey(kind: ClientKind, uriHash: string): Deno.KvKey {
  return [ROOT, "redirect_uri", kind, uriHash];
}

/** `["sandbox", "code", sha256(code)]`: an authorization code. */
export function codeKey(codeHash: string): Deno.KvKey {
  return [ROOT, "code", codeHash];
}

/** `["sandbox", "revoked_grant", grantId]`: the tokens of a grant (an authorization code used twice) are revoked. */
export function revokedGrantKey(grantId: string): Deno.KvKey {
  return [ROOT, "revoked_grant", grantId];
}

/** `["sandbox", "access"]`: prefix of every access token. */
export function accessPrefix(): Deno.KvKey {
  return [ROOT, "access"];
}

/** `["sandbox", "access", sha256(token)]`: an access token. */
export function accessKey(tokenHash: string): Deno.KvKey {
  return [ROOT, "access", tokenHash];
}

/** `["sandbox", "refresh", sha256(token)]`: a refresh token. */
export function refreshKey(tokenHash: string): Deno.KvKey {
  return [ROOT, "refresh", tokenHash];
}

/** `["sandbox", "webhook_seq"]`: the last webhook id handed out. */
export function webhookSeqKey(): Deno.KvKey {
  return [ROOT, "webhook_seq"];
}

/** `["sandbox", "webhook", tenantId]`: prefix of a tenant's webhooks. */
export function webhookPrefix(tenantId: string): Deno.KvKey {
  return [ROOT, "webhook", tenantId];
}

/** `["sandbox", "webhook", tenantId, id]`: one webhook, id as a number. */
export function webhookKey(tenantId: string, id: number): Deno.KvKey {
  return [ROOT, "webhook", tenantId, id];
}

/** A postback the sandbox sent, by its hook and its signature's timestamp (kept for redelivery). */
export function sentKey(webhookId: string, timestamp: number): Deno.KvKey {
  return [ROOT, "sent", webhookId, timestamp];
}
