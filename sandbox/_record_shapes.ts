/**
 * Type checks of the sandbox's stored records: a record edited by hand into junk (or left by a bad write) is read as
 * none, so an authorization code or an access token it names is unknown, never a 500 nor a token that never expires.
 *
 * @module
 */

/** The text fields of an authorization code as issued (its `expiresAt` is a time). */
export const CODE_FIELDS = ["clientId", "redirectUri", "codeChallenge", "scope", "sub", "tenantId"];

/** Whether `value` is an object (no list) whose `names` are strings and whose `time` is a finite number. */
export function shaped(value: unknown, names: string[], time: string): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  return names.every((name) => typeof fields[name] === "string") && Number.isFinite(fields[time]);
}

/** Whether a stored value is a used code's mark: `used`, the grant (a text) its replay revokes, a time if any. */
export function isUsedMark(value: unknown): boolean {
  if (typeof value !== "object" || value === null || !("used" in value)) return false;
  const { used, grantId, keptUntil } = value as Record<string, unknown>;
  return used === true && typeof grantId === "string" && (keptUntil === undefined || Number.isFinite(keptUntil));
}

/** Whether a stored value is an access token's grant: its texts (a tenant among them), an expiry that is a time. */
export function isAccessGrant(value: unknown): boolean {
  if (!shaped(value, ["clientId", "sub", "scope", "tenantId"], "expiresAt") || value.tenantId === "") return false;
  return value.grantId === undefined || typeof value.grantId === "string";
}

/**
 * Whether a stored value is a refresh token's grant: its texts (a tenant among them), and an expiry that is a time,
 * or none (a record of an older sandbox, which kept no expiry for its refresh tokens).
 */
export function isRefreshGrant(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { refreshExpiresAt, ...rest } = value as Record<string, unknown>;
  if (refreshExpiresAt !== undefined && !Number.isFinite(refreshExpiresAt)) return false;
  if (!shaped({ ...rest, at: 0 }, ["clientId", "sub", "scope", "tenantId"], "at") || rest.tenantId === "") return false;
  return rest.grantId === undefined || typeof rest.grantId === "string";
}
