// One token renewal for the requests of this process that meet a 401 at the
// same time with the same refresh token (_platform.ts): a platform that
// rotates refresh tokens accepts each once, so they would otherwise fail all
// renewals but one. A request sent before a renewal finished takes that
// renewal's pair; one sent after it renews on its own, as if alone. A failed
// renewal is not kept.

import { createHash } from "node:crypto";
import type { TokenPair } from "../types.ts";

/** How long a finished renewal is kept for the requests that were under way while it ran. */
const REUSE_MS = 10_000;

/** A renewal under way or recently done; `done` is the tick at which it succeeded. */
interface Renewal {
  promise: Promise<TokenPair>;
  done: number | null;
  doneAt: number;
}

/** Renewals by a hash of what identifies them (the secrets they send are not kept as keys). */
const renewals = new Map<string, Renewal>();
/** Orders requests sent and renewals finished in this process. */
let tick = 0;

/** The tick of a request about to be sent: pass it to {@linkcode shareRenewal} if it meets a 401. */
export function requestTick(): number {
  return ++tick;
}

/**
 * The renewal for `id` (token endpoint, client and refresh token): the one
 * under way, or one that finished after the request was `sent`; else a new
 * one, made by `renew`.
 */
export function shareRenewal(id: unknown[], sent: number, renew: () => Promise<TokenPair>): Promise<TokenPair> {
  const key = createHash("sha256").update(JSON.stringify(id)).digest("hex");
  const now = Date.now();
  for (const [k, v] of renewals) if (v.done !== null && now - v.doneAt > REUSE_MS) renewals.delete(k);
  const known = renewals.get(key);
  if (known && (known.done === null || known.done > sent)) return known.promise;
  const entry: Renewal = { promise: renew(), done: null, doneAt: 0 };
  renewals.set(key, entry);
  entry.promise.then(() => {
    entry.done = ++tick;
    entry.doneAt = Date.now();
  }, () => renewals.get(key) === entry && renewals.delete(key));
  return entry.promise;
}
