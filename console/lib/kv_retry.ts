/**
 * The console's KV plumbing: a retry for the moments another process holds
 * the write lock of a shared KV file, and the byte size of a value as KV
 * counts it. Private to `console/lib/`'s users inside the console.
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
