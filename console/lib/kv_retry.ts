/**
 * The console's KV plumbing: a retry for the moments another process holds
 * the write lock of a shared KV file, and the byte size of a value as KV
 * counts it. Private to `console/lib/`'s users inside the console.
 *
 * @module
 */

import { serialize } from "node:v8";

/** Attempts made while another process holds the SQLite write lock. */
const LOCK_ATTEMPTS = 12;

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

/**
 * Runs a KV operation, retrying with a bounded, jittered exponential backoff
 * while another process holds the write lock of a shared KV file.
 */
export async function retryLocked<T>(op: () => Promise<T>): Promise<T> {
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

/** Bytes a key and its value take in an atomic operation (V8 serialization, as KV stores them). */
export function entryBytes(key: Deno.KvKey, value: unknown): number {
  return serialize(key).byteLength + serialize(value).byteLength;
}
