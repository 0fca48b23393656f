/**
 * `retryWhileLocked`: runs a Deno KV call again while another process holds
 * the write lock of a shared KV file. Module A uses it for each of its own KV
 * calls; it is exported for services that run several processes on one KV
 * file and make KV calls of their own beside the store.
 *
 * @module
 */

/** Attempts made while another process holds the SQLite write lock. */
const LOCK_ATTEMPTS = 12;

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

/**
 * Runs a KV operation, retrying with a bounded, jittered exponential backoff
 * (12 attempts, about 4 s in all) while another process holds the SQLite
 * write lock of a shared KV file. Any other error, and the lock error after
 * the last attempt, is thrown as it is.
 *
 * @param op The KV call, made again on each attempt.
 * @returns What `op` resolved with.
 *
 * @example Usage
 * ```ts
 * import { retryWhileLocked } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * await retryWhileLocked(() => kv.set(["greeting"], "hello"));
 * assert.equal((await retryWhileLocked(() => kv.get<string>(["greeting"]))).value, "hello");
 * kv.close();
 * ```
 */
export async function retryWhileLocked<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await op();
    } catch (error) {
      if (!isLocked(error) || attempt >= LOCK_ATTEMPTS) throw error;
      const cap = Math.min(1_000, 5 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, cap / 2 + Math.random() * cap / 2));
    }
  }
}
