// The receiver's replay claims. A verified header's replay key (the SHA-256
// of its decoded fields) is claimed in KV with an atomic check before the
// postback is handed on: pending, with a lease, while `onPostback` runs; done
// once it succeeded; deleted when it threw, so the platform's retry is
// delivered. Every entry expires with the signature window (`expireIn`), so
// nothing is ever scanned or swept.
//
// The done mark is in KV before the 200 is answered. Marks of postbacks
// answered at the same time share commits: while four writers are busy on
// one KV object, the marks asked for wait and go together in the next commit.

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

/** A done mark waiting for its commit, and how its request learns the outcome. */
interface Mark {
  held: HeldClaim;
  settle(written: boolean): void;
}

/** The done marks of one KV object that wait for a writer, and how many writers commit marks now. */
interface DoneQueue {
  waiting: Mark[];
  writers: number;
}

const queues = new WeakMap<Deno.Kv, DoneQueue>();

/** How many done marks one commit writes at most (ten checks: what every KV, KV Connect too, takes). */
const DONE_GROUP = 10;
/**
 * How many writers commit marks at once on one KV object, each one commit of
 * marks at a time (or, after its group failed, that group's marks one by one,
 * side by side); the marks asked for while all are busy wait and group.
 */
const DONE_WRITERS = 4;

/**
 * Marks a held claim done; a claim taken over meanwhile is left alone. A
 * mark is committed at once while fewer than {@linkcode DONE_WRITERS}
 * writers are busy on this KV object; while all are, the marks asked for
 * wait and go together in the next commit (up to ten), so
 * postbacks answered at the same time share commits. Resolves `true` once
 * the mark is in KV, `false` when it could not be written (the claim was
 * taken over meanwhile, or the KV failed: then the claim stays pending until
 * its lease runs out, as after a crash). Never rejects.
 */
export function finish(kv: Deno.Kv, held: HeldClaim): Promise<boolean> {
  let queue = queues.get(kv);
  if (queue === undefined) queues.set(kv, queue = { waiting: [], writers: 0 });
  const { promise, resolve } = Promise.withResolvers<boolean>();
  queue.waiting.push({ held, settle: resolve });
  if (queue.writers < DONE_WRITERS) {
    queue.writers++;
    void writeWaiting(kv, queue);
  }
  return promise;
}

async function writeWaiting(kv: Deno.Kv, queue: DoneQueue): Promise<void> {
  while (queue.waiting.length > 0) {
    const group = queue.waiting.splice(0, DONE_GROUP);
    if (await commitMarks(kv, group)) {
      for (const mark of group) mark.settle(true);
    } else if (group.length === 1) {
      group[0].settle(false);
    } else {
      // One of the group was taken over meanwhile, or its commit failed: each on its own, side by side.
      await Promise.all(group.map(async (mark) => mark.settle(await commitMarks(kv, [mark]))));
    }
  }
  queue.writers--;
}

/** Commits these marks in one atomic operation, each checked by its claim's versionstamp. */
async function commitMarks(kv: Deno.Kv, marks: Mark[]): Promise<boolean> {
  return await withLockRetry(() => {
    let op = kv.atomic();
    for (const { held } of marks) op = op.check(held).set(held.key, DONE, { expireIn: held.expireIn });
    return op.commit();
  }).then((result) => result.ok, () => false);
}

/** Deletes a held claim so that a retry is delivered; a claim taken over meanwhile is left alone. */
export async function release(kv: Deno.Kv, held: HeldClaim): Promise<void> {
  await withLockRetry(() => kv.atomic().check(held).delete(held.key).commit());
}
