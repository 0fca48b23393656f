/**
 * The console's KV plumbing: a retry for the moments another process holds
 * the write lock of a shared KV file, a wait while a key shows work in
 * progress, and the byte size of a value as KV counts it. Private to
 * `console/lib/`'s users inside the console.
 *
 * @module
 */

import { serialize } from "node:v8";
import { retryWhileLocked } from "../../webhooks/mod.ts";

/**
 * Runs a KV operation, retrying while another process holds the write lock
 * of a shared KV file (Module A's `retryWhileLocked`).
 */
export const retryLocked: <T>(op: () => Promise<T>) => Promise<T> = retryWhileLocked;

/** Bytes a key and its value take in an atomic operation (V8 serialization, as KV stores them). */
export function entryBytes(key: Deno.KvKey, value: unknown): number {
  return serialize(key).byteLength + serialize(value).byteLength;
}

/** How long a second submission of a form waits by default for the first, in progress, to end. */
export const SETTLE_MS = 15_000;

/**
 * Reads `key` every 50 ms while `busy` says its entry (absent: no versionstamp) shows work in progress elsewhere (the
 * first submission of a form sent twice, in this process or another on the KV), for at most `timeoutMs`.
 *
 * @returns the entry last read
 */
export async function waitWhile<T>(
  kv: Deno.Kv,
  key: Deno.KvKey,
  busy: (entry: Deno.KvEntryMaybe<T>) => boolean,
  timeoutMs: number = SETTLE_MS,
): Promise<Deno.KvEntryMaybe<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const entry = await kv.get<T>(key);
    if (!busy(entry) || Date.now() >= until) return entry;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
