// Atomic writes: each request becomes one local `kv.atomic()` with the same
// checks, mutations and enqueues, so the local KV orders and checks
// versionstamps and the client gets the local commit's versionstamp.
import { decodeKey } from "./_key_codec.ts";
import { checkWrite, MESSAGES } from "./_limits.ts";
import { type AtomicWriteMsg, M_DELETE, M_MAX, M_MIN, M_SET, M_SUM } from "./_schema.ts";
import { decodeValue, KvConnectError, versionstampBytes, versionstampHex } from "./_values.ts";

/** The outcome of an atomic write: its versionstamp, or null when a check failed. */
export type WriteResult = Uint8Array | null;

function key(bytes: Uint8Array): Deno.KvKey {
  try {
    return decodeKey(bytes);
  } catch {
    throw new KvConnectError(MESSAGES.invalidMutationKind);
  }
}

function u64(value: unknown): Deno.KvU64 {
  if (value instanceof Deno.KvU64) return value;
  throw new KvConnectError("Failed to perform mutation: the operand is not a 64-bit unsigned integer");
}

function build(kv: Deno.Kv, write: AtomicWriteMsg, now: number): Deno.AtomicOperation {
  const op = kv.atomic();
  for (const check of write.checks) {
    op.check({
      key: key(check.key),
      versionstamp: check.versionstamp.length === 0 ? null : versionstampHex(check.versionstamp),
    });
  }
  for (const mutation of write.mutations) {
    const target = key(mutation.key);
    const value = mutation.value ? decodeValue(mutation.value.data, mutation.value.encoding) : undefined;
    const type = mutation.mutationType;
    if (type === M_SET) {
      const expireIn = mutation.expireAtMs > 0 ? Math.max(1, mutation.expireAtMs - now) : undefined;
      op.set(target, value, expireIn === undefined ? undefined : { expireIn });
    } else if (type === M_DELETE) op.delete(target);
    else if (type === M_SUM) op.sum(target, u64(value).value);
    else if (type === M_MIN) op.min(target, u64(value).value);
    else if (type === M_MAX) op.max(target, u64(value).value);
    else throw new KvConnectError(MESSAGES.invalidMutationKind);
  }
  for (const enqueue of write.enqueues) {
    op.enqueue(decodeValue(enqueue.payload, 1), {
      delay: Math.max(0, enqueue.deadlineMs - now),
      keysIfUndelivered: enqueue.keysIfUndelivered.map(key),
      backoffSchedule: enqueue.backoffSchedule.length > 0 ? enqueue.backoffSchedule : undefined,
    });
  }
  return op;
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|busy/i.test(error.message);
}

/**
 * Applies an atomic write to the local KV after denokv's limits. A local KV
 * file that another process holds locked is retried for a while, then
 * answered 503 (a KV Connect client retries a 5xx).
 */
export async function atomicWrite(kv: Deno.Kv, write: AtomicWriteMsg): Promise<WriteResult> {
  const now = Date.now();
  checkWrite(write, now);
  for (let attempt = 0;; attempt++) {
    const op = build(kv, write, now);
    try {
      const result = await op.commit();
      return result.ok ? versionstampBytes(result.versionstamp) : null;
    } catch (error) {
      if (isLocked(error) && attempt < 50) {
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
        continue;
      }
      if (isLocked(error)) throw new KvConnectError("The server is temporarially unavailable, try again later.", 503);
      // What the local KV refuses (a sum on a value that is not a KvU64, its own size limits) is the caller's error.
      throw new KvConnectError(error instanceof Error ? error.message : String(error));
    }
  }
}
