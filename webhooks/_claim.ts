// The receiver's replay claims. A verified header's replay key (the SHA-256
// of its decoded fields) is claimed in KV with an atomic check before the
// postback is handed on: pending, with a lease, while `onPostback` runs; done
// once it succeeded; deleted when it threw, so the platform's retry is
// delivered. Every entry expires with the signature window (`expireIn`), so
// nothing is ever scanned or swept.
//
// The done mark is written after the answer, in the background: until it
// lands the claim is pending within its lease (30 s), which answers a copy
// as a duplicate just as done does. The marks that wait meanwhile go in one
// commit (at most one in flight per KV), and a claim that meets a pending
// claim past its lease waits for them before it decides on a takeover.

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { postbackClaimKey } from "./_keys.ts";
import { withLockRetry } from "./_kv.ts";

/** What a claim entry holds. */
interface ClaimValue {
  state: "pending" | "done";
  /** Until when (receiver clock, ms) a pending claim belongs to its taker. */
  leaseUntil: number;
}

/** A claim this request holds. */
export interface HeldClaim {
  key: Deno.KvKey;
  versionstamp: string;
  expireIn: number;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/**
 * The replay key of a verified header: SHA-256 over its decoded fields and
 * signature bytes, so two spellings of one header (URL-encoding, scheme case,
 * spaces) share one key. Returns the digest and its hex form (the postback id).
 */
export function replayKey(fields: {
  clientId: string;
  tenantId: string;
  jiveUrl: string;
  timestamp: number;
  signature: Uint8Array;
}): { digest: Uint8Array; id: string } {
  const text = JSON.stringify([
    fields.clientId,
    fields.tenantId,
    fields.jiveUrl,
    fields.timestamp,
    hex(fields.signature),
  ]);
  const digest = new Uint8Array(createHash("sha256").update(text, "utf8").digest());
  return { digest, id: hex(digest) };
}

/**
 * Claims a replay key: a new claim, or the takeover of a pending claim whose
 * lease ran out (its taker died mid-postback). `null` when the key is done,
 * or pending within its lease: the request is a duplicate. `checks` (at most
 * nine: the community and records the decision rests on) go into the same
 * commit; `"stale"` when one of them no longer holds, and nothing is claimed.
 */
export async function claim(
  kv: Deno.Kv,
  digest: Uint8Array,
  now: number,
  leaseMs: number,
  expireIn: number,
  checks: Deno.AtomicCheck[] = [],
): Promise<HeldClaim | null | "stale"> {
  const key = postbackClaimKey(digest);
  const value: ClaimValue = { state: "pending", leaseUntil: now + leaseMs };
  const first = await withLockRetry(() =>
    kv.atomic().check({ key, versionstamp: null }, ...checks).set(key, value, { expireIn }).commit()
  );
  if (first.ok) return { key, versionstamp: first.versionstamp, expireIn };
  // Taken, or a check failed: read both and decide; a takeover that loses a race is decided again.
  // A done mark of this process still on its way is waited for, so that it is read.
  await settled(kv);
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
    const [current, ...others] = await withLockRetry(() =>
      kv.getMany<[ClaimValue, ...unknown[]]>([key, ...checks.map((check) => check.key)])
    );
    if (others.some((entry, i) => entry.versionstamp !== checks[i].versionstamp)) return "stale";
    if (current.value && (current.value.state === "done" || current.value.leaseUntil > now)) return null;
    const taken = await withLockRetry(() =>
      kv.atomic().check(current, ...checks).set(key, value, { expireIn }).commit()
    );
    if (taken.ok) return { key, versionstamp: taken.versionstamp, expireIn };
  }
  // Others keep taking and releasing this header: one of them holds it now.
  return null;
}

/** How often a claim whose takeover lost a race is decided again. */
const TAKEOVER_ATTEMPTS = 3;

const DONE: ClaimValue = { state: "done", leaseUntil: 0 };

/** Marks a held claim done; a claim taken over meanwhile is left alone. */
export async function finish(kv: Deno.Kv, held: HeldClaim): Promise<void> {
  await withLockRetry(() => kv.atomic().check(held).set(held.key, DONE, { expireIn: held.expireIn }).commit());
}

/** The done marks of one KV that wait to be written, and how far the writing got. */
interface DoneQueue {
  waiting: HeldClaim[];
  writing: boolean;
  /** Marks handed over so far, and marks written (or given up) so far. */
  queued: number;
  handled: number;
  /** Resolved, and replaced, after each commit of marks. */
  progress: PromiseWithResolvers<void>;
}

const queues = new WeakMap<Deno.Kv, DoneQueue>();

/** How many done marks one commit writes at most (ten checks: what every KV, KV Connect too, takes). */
export const DONE_GROUP = 10;

/**
 * Marks a held claim done in the background, with the others that wait:
 * one commit for all of them while another is in flight. A mark that cannot
 * be written leaves its claim pending; its lease runs out as after a crash.
 */
export function finishLater(kv: Deno.Kv, held: HeldClaim): void {
  let queue = queues.get(kv);
  if (queue === undefined) {
    queue = { waiting: [], writing: false, queued: 0, handled: 0, progress: Promise.withResolvers() };
    queues.set(kv, queue);
  }
  queue.waiting.push(held);
  queue.queued++;
  if (!queue.writing) {
    queue.writing = true;
    void writeWaiting(kv, queue);
  }
}

async function writeWaiting(kv: Deno.Kv, queue: DoneQueue): Promise<void> {
  while (queue.waiting.length > 0) {
    const group = queue.waiting.splice(0, DONE_GROUP);
    const together = group.length > 1 &&
      await withLockRetry(() => {
        const op = kv.atomic();
        for (const held of group) op.check(held).set(held.key, DONE, { expireIn: held.expireIn });
        return op.commit();
      }).then((result) => result.ok, () => false);
    // One of them was taken over meanwhile (or the group failed): each on its own, the rest still marked.
    if (!together) { for (const held of group) await finish(kv, held).catch(() => {}); }
    queue.handled += group.length;
    queue.progress.resolve();
    queue.progress = Promise.withResolvers();
  }
  queue.writing = false;
}

/**
 * Settles once every done mark handed to {@linkcode finishLater} for this KV
 * so far was written (or failed); marks handed over later are not waited for,
 * so a steady stream of postbacks never holds it up.
 */
export async function settled(kv: Deno.Kv): Promise<void> {
  const queue = queues.get(kv);
  if (queue === undefined) return;
  const target = queue.queued;
  while (queue.handled < target) await queue.progress.promise;
}

/** Deletes a held claim so that a retry is delivered; a claim taken over meanwhile is left alone. */
export async function release(kv: Deno.Kv, held: HeldClaim): Promise<void> {
  await withLockRetry(() => kv.atomic().check(held).delete(held.key).commit());
}
