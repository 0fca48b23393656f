// The claim that `hooks register` holds on its request while it checks for an unfinished registration and registers.
// The check reads the community's pending entries; two commands of one request started at the same instant (two
// operators, a script run twice) both read before either `register` had written its entry, and both registered: two
// platform hooks, every postback reaching the app twice. A claim key of the tenant and the request (its callback,
// object and set of events, as reconcile matches a pending entry to a hook), set only where none is (a KV check:
// one commit wins, on a local file as on KV Connect), closes that. It is deleted once `register` has returned or
// thrown; one left by a process killed mid-way lapses after CLAIM_MS, longer than a register can run (its POST, one
// token renewal and the POST again, each at most the 30 s default timeout) and soon enough for an operator's retry.

import { keyFits, withLockRetry } from "../../kv/mod.ts";

/** How long a claim holds when its command never deletes it (killed mid-way). */
export const CLAIM_MS = 2 * 60_000;

/** What a claim key holds: when its command claimed the request, and when the claim lapses. */
interface Claim {
  startedAt: number;
  until: number;
}

/** A claim taken (`release` deletes it, if still this command's), or the claim held by another command. */
export type ClaimResult = { ok: true; release(): Promise<void> } | { ok: false; startedAt: number };

/** The request a claim is of: what a pending entry of the same registration has alike. */
export interface ClaimedRequest {
  callback: string;
  object?: string;
  events: string[];
}

/** SHA-256 of `text`, in hex. */
async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The claim key of `request` in the tenant: its parts hashed, as a callback may be long and a key holds 2 KiB. A
 * tenant id near the longest a community may have (MAX_TENANT_ID_BYTES) leaves no room for the hash beside it: the
 * tenant id is then hashed with the request, one part, so that such a community registers too.
 */
async function claimKey(tenantId: string, request: ClaimedRequest): Promise<Deno.KvKey> {
  const events = [...new Set(request.events)].sort();
  const parts = [request.callback, request.object ?? "", events];
  const key = ["cli_register_claim", tenantId, await sha256Hex(JSON.stringify(parts))];
  return keyFits(key) ? key : ["cli_register_claim", await sha256Hex(JSON.stringify([tenantId, ...parts]))];
}

function isClaim(value: unknown): value is Claim {
  const claim = value as Claim | null;
  return typeof claim === "object" && claim !== null && Number.isFinite(claim.startedAt) &&
    Number.isFinite(claim.until);
}

/**
 * Claims `request` of the tenant for this command, at `now`; a claim of another command that has lapsed (or that
 * is junk, edited by hand) is taken over. Fails only when a live claim of the same request is held.
 */
export async function claimRegistration(
  kv: Deno.Kv,
  tenantId: string,
  request: ClaimedRequest,
  now: () => number = Date.now,
): Promise<ClaimResult> {
  const key = await claimKey(tenantId, request);
  for (let attempt = 0; attempt < 3; attempt++) {
    const held = await withLockRetry(() => kv.get(key));
    if (isClaim(held.value) && held.value.until > now()) return { ok: false, startedAt: held.value.startedAt };
    const startedAt = now();
    const claim: Claim = { startedAt, until: startedAt + CLAIM_MS };
    const set = await withLockRetry(() => kv.atomic().check(held).set(key, claim, { expireIn: CLAIM_MS }).commit());
    if (set.ok) {
      const ours = { key, versionstamp: set.versionstamp };
      return {
        ok: true,
        release: async () => void await withLockRetry(() => kv.atomic().check(ours).delete(key).commit()),
      };
    }
  }
  // Three commits lost in a row: others keep claiming it.
  const held = await withLockRetry(() => kv.get(key));
  return { ok: false, startedAt: isClaim(held.value) ? held.value.startedAt : now() };
}
