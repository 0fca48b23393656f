// What the community store reads a stored value as: a name pointer's tenant id, a tenant's record, a record of the
// earlier layout (a lone surrogate in its tenant id); each judged without trusting a value edited by hand.

import { communityKey, keyFits } from "../kv/mod.ts";
import type { Community } from "../types.ts";

/**
 * Whether a stored name pointer holds what a pointer may: a non-empty tenant id a record could be stored under (one
 * too long for its key is junk).
 */
export const isTenantId = (value: unknown): value is string =>
  typeof value === "string" && value !== "" && keyFits(communityKey(value));

/** The stored value under tenant `tenantId`'s key when it is that tenant's record (a name to key), else `null`. */
export function recordOf(value: unknown, tenantId: string): Community | null {
  const v = value as Community | null;
  return typeof v === "object" && v !== null && v.tenantId === tenantId && typeof v.name === "string" ? v : null;
}

/** Whether `value` is a record an earlier version stored with a lone surrogate in its tenant id: another's, kept. */
export const earlierLayout = (value: unknown): boolean => {
  const tenantId = (value as Community | null)?.tenantId;
  return typeof tenantId === "string" && !tenantId.isWellFormed();
};
