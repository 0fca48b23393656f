// Token renewal with a community's stored tokens, shared across processes
// (consoles on one KV over KV Connect, a console and the CLI): a platform that
// rotates refresh tokens accepts each once, so only one process may spend it.
// A process whose request was refused first reads the community again: when
// its stored access token is no longer the refused one, another process
// renewed and that pair is used. Else it takes a short lease in KV, renews,
// stores the pair and lets go. A process that finds the lease held waits for
// the pair its holder stores; a holder that died (kill -9) is waited for only
// until its lease runs out. The lease holds no secret: an owner id and a time.

import { communityKey, communityRenewalKey, withLockRetry } from "../kv/mod.ts";
import type { Community, TokenPair } from "../types.ts";

/**
 * The lease's time beyond the renewal's own time-out: for storing the pair
 * (a KV file locked by another process is retried for about 4 s).
 */
export const LEASE_MARGIN_MS = 5_000;
/** Pause between two looks at a held lease, before jitter. */
const POLL_MS = 100;

/** What a renewal needs to be shared with other processes on the same KV. */
export interface RenewalLease {
  kv: Deno.Kv;
  /** The community whose stored tokens the call uses. */
  tenantId: string;
  /** How long a holder may take to renew and store: the lease's length, in ms. */
  ms: number;
}

/** The value under the lease key. */
interface Lease {
  owner: string;
  /** When the lease runs out, in ms since the epoch. */
  until: number;
}

/**
 * Whether a lease value is held. Its `until` is on its holder's clock, which may differ from this one by seconds
 * (processes on several machines over KV Connect): a lease is taken as run out only once this process watched it,
 * unchanged, for the lease's length `ms` on its own clock, or when its `until` passed by more than that length.
 * Clocks apart by less than a lease never let two holders spend one refresh token.
 *
 * @param value The lease as read.
 * @param now This process's time, in ms since the epoch.
 * @param watchedFor For how long this process has seen this very lease (its versionstamp), in ms.
 * @param ms The lease's length.
 */
function isHeld(value: unknown, now: number, watchedFor: number, ms: number): boolean {
  return typeof value === "object" && value !== null && typeof (value as Lease).until === "number" &&
    watchedFor < ms && (value as Lease).until + ms > now;
}

/** The stored pair when it differs from the refused access token (another process renewed), else `null`. */
function renewedPair(community: Community | null, refused: string): TokenPair | null {
  const access = community?.oauth?.access_token;
  if (typeof access !== "string" || access === "" || access === refused) return null;
  const refresh = community?.oauth?.refresh_token;
  return { access_token: access, refresh_token: typeof refresh === "string" ? refresh : "" };
}

/**
 * The pair to retry with after the platform refused `refused`, the access
 * token stored on the community: the one another process stored meanwhile,
 * or the one `renew` obtains under the community's lease, stored by `store`
 * before the lease is let go.
 * Waiting is bounded: after twice the lease's length without either (other
 * processes took the lease in turn, each renewing in vain), it rejects with
 * the error `busy` makes, renewing nothing: a renewal beside a live holder
 * would spend the refresh token it spends.
 *
 * @param lease The KV, the community and the lease's length.
 * @param refused The access token the platform refused.
 * @param renew Renews the tokens at the platform.
 * @param store Stores a renewed pair on the community.
 * @param busy Makes the error for a wait that ran out, given its length in ms.
 * @returns The pair to retry with.
 */
export async function renewAcrossProcesses(
  lease: RenewalLease,
  refused: string,
  renew: () => Promise<TokenPair>,
  store: (tokens: TokenPair) => Promise<void>,
  busy: (waited: number) => Error,
): Promise<TokenPair> {
  // Either way the pair is held by the community: recorded for storedUnder.
  const kept = (tokens: TokenPair) => (stored.set(tokens, lease), tokens);
  const { kv, tenantId, ms } = lease;
  const keys: [Deno.KvKey, Deno.KvKey] = [communityKey(tenantId), communityRenewalKey(tenantId)];
  // Times this process measures itself are on its monotonic clock.
  const giveUpAt = performance.now() + 2 * ms;
  let watched = { versionstamp: null as string | null, since: 0 };
  for (;;) {
    const [community, held] = await withLockRetry(() => kv.getMany<[Community, Lease]>(keys));
    const renewed = renewedPair(community.value, refused);
    if (renewed) return kept(renewed);
    const now = Date.now(), seen = performance.now();
    if (held.versionstamp !== watched.versionstamp) watched = { versionstamp: held.versionstamp, since: seen };
    const free = !isHeld(held.value, now, seen - watched.since, ms);
    if (!free && seen >= giveUpAt) throw busy(2 * ms);
    if (free) {
      // Taken only while the community still holds the refused token and the lease is as read: of two processes
      // that race for it, one wins, and the other reads again after a pause.
      const mine: Lease = { owner: crypto.randomUUID(), until: now + ms };
      // The key's expiry only clears a dead holder's lease away. It is far beyond `until`: KV Connect sends it as a
      // time on this clock, and a server whose clock runs ahead would otherwise drop a lease still held.
      const taken = await withLockRetry(() =>
        kv.atomic().check(community, held).set(keys[1], mine, { expireIn: 4 * ms }).commit()
      );
      if (taken.ok) {
        return kept(
          await holding(kv, { key: keys[1], versionstamp: taken.versionstamp }, () => renewAndStore(renew, store)),
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS / 2 + Math.random() * POLL_MS));
  }
}

/** The pairs {@linkcode renewAcrossProcesses} returned, each with the lease of the community that holds it. */
const stored = new WeakMap<TokenPair, RenewalLease>();

/**
 * Whether `tokens` is held by the community of `lease` already: a pair of
 * {@linkcode renewAcrossProcesses} for that community on that KV. A call of
 * this process that shared another call's renewal (one without a lease, say
 * with explicit tokens) stores the pair itself.
 *
 * @param tokens A renewed pair.
 * @param lease The calling call's lease, if any.
 * @returns `true` when the pair needs no storing by a call with that lease.
 */
export function storedUnder(tokens: TokenPair, lease: RenewalLease | undefined): boolean {
  const holder = stored.get(tokens);
  return lease !== undefined && holder !== undefined && holder.kv === lease.kv && holder.tenantId === lease.tenantId;
}

/** A renewed pair, once stored. */
async function renewAndStore(
  renew: () => Promise<TokenPair>,
  store: (tokens: TokenPair) => Promise<void>,
): Promise<TokenPair> {
  const tokens = await renew();
  await store(tokens);
  return tokens;
}

/** Runs `renew` under the lease taken at `lease`, then lets go of it unless another process took it meanwhile. */
async function holding(
  kv: Deno.Kv,
  lease: Deno.AtomicCheck,
  renew: () => Promise<TokenPair>,
): Promise<TokenPair> {
  try {
    return await renew();
  } finally {
    // Best effort: a lease not let go runs out on its own.
    await withLockRetry(() => kv.atomic().check(lease).delete(lease.key).commit()).catch(() => {});
  }
}
