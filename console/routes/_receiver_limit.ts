/**
 * The receiver's rate limit per tenant (`POST /hooks/{id}`): each postback
 * whose header verified is counted once against its tenant, whichever of the
 * tenant's secrets verified it.
 *
 * Before the receiver reads anything, a header that verifies with the
 * tenant's current secret (as read a few seconds ago) is counted, and one
 * over the limit is answered 429 at once. A header that does not verify
 * there may still be the tenant's: signed with the previous secret of a
 * rotation (the console never sees that secret; only the receiver verifies
 * with it), or with a new secret saved after the community was read. The
 * receiver then counts it once it has verified it, at `accept` (before
 * anything is claimed or stored: over the limit, nothing is), or, for a
 * postback refused after verifying (a bad body, an unknown hook), when its
 * attempt is reported. Forged headers are refused 401 and count nowhere.
 *
 * @module
 */

import { type Community, verifyJiveExtn } from "../../webhooks/mod.ts";
import type { RateLimiter } from "../lib/rate_limit.ts";
import { Memo } from "../lib/memo.ts";
import type { Deps } from "../lib/context.ts";

/** How long a community read for the rate limit is kept. */
const TENANT_CACHE_MS = 5_000;

/** A refused hit: the seconds until the window ends. */
export interface OverLimit {
  /** Seconds until the tenant's window ends. */
  retryAfter: number;
}

/** Where one request stands with the limit. */
export interface LimitState {
  /** Counted already (or never to be: the console's own replays). */
  counted?: boolean;
  /** The tenant counted, when it is over its limit. */
  limited?: OverLimit & { tenant: string };
}

/**
 * Communities as read for the rate limit, kept a few seconds per console:
 * they only spare the receiver's work for a tenant over its limit. A header
 * that does not verify with the kept secret (a secret rotated meanwhile) is
 * counted by the receiver once verified, so the cache never lets one pass
 * uncounted.
 */
export function tenantFinder(deps: Deps): (tenantId: string) => Promise<Community | null> {
  const memo = new Memo({ ttlMs: TENANT_CACHE_MS, max: 1_000 }, (id) => deps.webhooks.communities.findByTenantID(id));
  return (tenantId) => memo.get(tenantId);
}

/**
 * The tenant of a postback whose header verifies with that tenant's current
 * client secret (as `find` has it), or `null`: the receiver decides then.
 */
export async function verifiedTenant(
  find: (tenantId: string) => Promise<Community | null>,
  header: string | undefined,
): Promise<Community | null> {
  if (!header || header.length > 4096) return null;
  const match = /(?:^|[\s&])tenant_id=([^&\s]{1,200})/.exec(header);
  if (!match) return null;
  let tenantId: string;
  try {
    tenantId = decodeURIComponent(match[1]);
  } catch {
    return null;
  }
  const community = await find(tenantId);
  if (!community?.clientSecret) return null;
  const verified = await verifyJiveExtn(header, community.clientSecret).catch(() => null);
  return verified?.ok && verified.tenantId === tenantId ? community : null;
}

/**
 * Counts the request against `tenant` unless it was counted already; `false`
 * when it is (or was found) over the limit, noted in `state`.
 */
export async function countOnce(limiter: RateLimiter, state: LimitState, tenant: string): Promise<boolean> {
  if (state.counted) return state.limited === undefined;
  state.counted = true;
  const verdict = await limiter.hit("receiver", tenant);
  if (verdict.ok) return true;
  state.limited = { tenant, retryAfter: verdict.retryAfter };
  return false;
}

/** The logged reason of a postback refused for its tenant's limit. */
export function overLimitReason(limited: OverLimit & { tenant: string }): string {
  return `Too many requests: tenant ${limited.tenant} is over its limit; try again in ${limited.retryAfter} s`;
}
