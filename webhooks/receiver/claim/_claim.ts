// The receiver's replay claims. A verified header is claimed per hook: one KV
// entry per webhook URL its items name, keyed by the header's timestamp and the SHA-256 of its
// replay key and that URL, so two postbacks the platform signs in the same
// millisecond for one tenant (identical headers) but sends to different hooks
// are both delivered, and a replay to a hook the header already reached is
// refused whatever its body. With `onPostback` a claim is pending, with a
// lease, while it runs; done once it succeeded; deleted when it threw. With
// `write` a claim is written done in the commit that stores the postback
// (see _group_commit.ts). Every entry expires with the signature window
// (`expireIn`), so nothing is ever scanned or swept. The done marks are
// written in _claim_done.ts.

import { hash } from "node:crypto";
import { getManyBatched, postbackClaimKey, withLockRetry } from "../../kv/mod.ts";

/** What a claim entry holds. */
export interface ClaimValue {
  state: "pending" | "done";
  /** Until when (receiver clock, ms) a pending claim belongs to its taker. */
  leaseUntil: number;
}

/** A claim this request holds: one entry per hook, all written by one commit. */
export interface HeldClaim {
  keys: Deno.KvKey[];
  versionstamp: string;
  expireIn: number;
}

/** Why a header could not be claimed: done (a duplicate), held by a request still running, or stale checks. */
export type NotClaimed = "done" | "held" | "stale";

/** The most checks one commit carries on any KV: KV Connect (denokv, Deno Deploy) takes ten. */
export const MAX_COMMIT_CHECKS = 10;

/**
 * The most hooks one postback may name: each is a check of the commit that
 * claims it, and with `sequence` the counter is one more, so its own checks
 * fit {@linkcode MAX_COMMIT_CHECKS} (the cached checks the receiver adds are
 * dropped when they would not). More is 413: a commit of more checks would
 * fail on a remote KV on every retry.
 */
export function maxClaimHooks(sequence: boolean): number {
  return MAX_COMMIT_CHECKS - (sequence ? 1 : 0);
}

/** The claim value written done. */
export const DONE: ClaimValue = { state: "done", leaseUntil: 0 };

/**
 * The done claim as `write` mode writes it: {@linkcode DONE} as UTF-8 JSON
 * bytes, which KV stores as they are (an object costs a V8 serialisation per
 * claim on the receiver's main thread). Read by {@linkcode claimValue}.
 */
export const DONE_BYTES: Uint8Array = new TextEncoder().encode(JSON.stringify(DONE));

const decoder = new TextDecoder();

/** A claim entry's value, whichever way it was written (an object, or JSON bytes). */
export function claimValue(value: unknown): ClaimValue | null {
  if (value instanceof Uint8Array) return JSON.parse(decoder.decode(value)) as ClaimValue;
  return value as ClaimValue | null;
}

/**
 * The replay key of a verified header: the hex SHA-256 over its decoded
 * fields and signature bytes, so two spellings of one header (URL-encoding,
 * scheme case, spaces) share one key.
 */
export function replayKey(fields: {
  clientId: string;
  tenantId: string;
  jiveUrl: string;
  timestamp: number;
  signature: Uint8Array;
}): string {
  const text = JSON.stringify([
    fields.clientId,
    fields.tenantId,
    fields.jiveUrl,
    fields.timestamp,
    fields.signature.toHex(),
  ]);
  return hash("sha256", text, "hex");
}

/**
 * The claim keys of a header (signed at `timestamp`) for the hooks (self
 * URLs) a postback names, each the hex SHA-256 of the replay key with one
 * URL; and the postback's id: the hex SHA-256 of the replay key with those
 * URLs (one URL: its claim's), the same for the platform's retry (same
 * header, same hooks) and different for a same-millisecond postback to
 * another hook. One-shot hashes of text, hex out: no hash object or buffer
 * per call.
 */
export function claimOf(
  digest: string,
  urls: string[],
  timestamp: number,
): { keys: Deno.KvKey[]; postbackId: string } {
  // An empty postback names no hook: it claims the header for none (""), so its own copies are duplicates.
  const sorted = urls.length === 0 ? [""] : urls.length === 1 ? urls : [...new Set(urls)].sort();
  const ids = sorted.map((url) => hash("sha256", `${digest}\n${url}`, "hex"));
  const postbackId = ids.length === 1 ? ids[0] : hash("sha256", `${digest}\n${sorted.join("\n")}`, "hex");
  return { keys: ids.map((id) => postbackClaimKey(timestamp, id)), postbackId };
}

/**
 * What the claim entries as read say of a new claim: `"done"` when one hook
 * already took this header (a duplicate), `"held"` when one is pending within
 * its lease (a request still running), else `null`: the claim may be taken
 * (over) with these entries as its checks.
 */
export function judge(entries: Deno.KvEntryMaybe<unknown>[], now: number): "done" | "held" | null {
  const values = entries.map((entry) => claimValue(entry.value));
  if (values.some((value) => value?.state === "done")) return "done";
  if (values.some((value) => value && value.leaseUntil > now)) return "held";
  return null;
}

/**
 * Claims a header for its hooks, pending: a new claim, or the takeover of a
 * pending claim whose lease ran out (its taker died mid-postback). `"done"`
 * when a hook already took it, `"held"` when another request holds it now.
 * `checks` (the community and records the decision rests on; with the claim's
 * keys at most ten) go into the same commit; `"stale"` when one of them no
 * longer holds, and nothing is claimed.
 */
export async function claim(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
  now: number,
  leaseMs: number,
  expireIn: number,
  checks: Deno.AtomicCheck[] = [],
): Promise<HeldClaim | NotClaimed> {
  const value: ClaimValue = { state: "pending", leaseUntil: now + leaseMs };
  const commit = (current: Deno.AtomicCheck[]) =>
    withLockRetry(() => {
      const op = kv.atomic().check(...current, ...checks);
      for (const key of keys) op.set(key, value, { expireIn });
      return op.commit();
    });
  const first = await commit(keys.map((key) => ({ key, versionstamp: null })));
  if (first.ok) return { keys, versionstamp: first.versionstamp, expireIn };
  // Taken, or a check failed: read both and decide; a takeover that loses a race is decided again.
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
    const read = await getManyBatched<unknown>(kv, [...keys, ...checks.map((check) => check.key)]);
    const current = read.slice(0, keys.length) as Deno.KvEntryMaybe<ClaimValue>[];
    if (read.slice(keys.length).some((entry, i) => entry.versionstamp !== checks[i].versionstamp)) return "stale";
    const verdict = judge(current, now);
    if (verdict) return verdict;
    const taken = await commit(current);
    if (taken.ok) return { keys, versionstamp: taken.versionstamp, expireIn };
  }
  // Others keep taking and releasing this header: one of them holds it now.
  return "held";
}

/** How often a claim whose takeover lost a race is decided again. */
const TAKEOVER_ATTEMPTS = 3;

/** Checks that each of a held claim's entries is still as this request wrote it. */
export function heldChecks(held: HeldClaim): Deno.AtomicCheck[] {
  return held.keys.map((key) => ({ key, versionstamp: held.versionstamp }));
}

/** Deletes a held claim so that a retry is delivered; a claim taken over meanwhile is left alone. */
export async function release(kv: Deno.Kv, held: HeldClaim): Promise<void> {
  await withLockRetry(() => {
    const op = kv.atomic().check(...heldChecks(held));
    for (const key of held.keys) op.delete(key);
    return op.commit();
  });
}

/**
 * Keeps a held claim's lease from running out while its request is alive
 * (a slow `onPostback`): every third of the lease, the lease is moved on by
 * a commit checked against the claim's versionstamp, which `held` then
 * carries. Only a process that died stops doing so, so only its claim can be
 * taken over. `stop()` resolves once no renewal is under way, so the done
 * mark or the release that follows checks the last versionstamp.
 */
export function keepHeld(kv: Deno.Kv, held: HeldClaim, leaseMs: number, now: () => number): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const renew = async () => {
    const op = kv.atomic().check(...heldChecks(held));
    const value: ClaimValue = { state: "pending", leaseUntil: now() + leaseMs };
    for (const key of held.keys) op.set(key, value, { expireIn: held.expireIn });
    const result = await withLockRetry(() => op.commit()).catch(() => null);
    if (result?.ok && !stopped) {
      held.versionstamp = result.versionstamp;
      schedule();
    } else if (result?.ok) held.versionstamp = result.versionstamp;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    timer = setTimeout(() => running = renew(), Math.max(1, Math.floor(leaseMs / 3)));
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
