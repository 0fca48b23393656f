import { decodeKey as decodeKeyBytes, encodeKey as encodeKeyBytes } from "./_key_codec.ts";
import { encode, pb } from "./_schema.ts";

/**
 * denokv's limits (`denokv/limits.rs`), which the server enforces.
 *
 * @example
 * ```ts
 * import { DENOKV_LIMITS } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DENOKV_LIMITS.maxChecks, 10);
 * ```
 */
export const DENOKV_LIMITS = {
  maxWriteKeyBytes: 2048,
  maxReadKeyBytes: 2049,
  maxValueBytes: 65536,
  maxReadRanges: 10,
  maxReadEntries: 1000,
  maxChecks: 10,
  maxMutations: 1000,
  maxTotalMutationBytes: 819200,
  maxQueueDelayMs: 30 * 24 * 60 * 60 * 1000,
  maxQueueUndeliveredKeys: 10,
  maxQueueBackoffIntervals: 10,
  maxQueueBackoffMs: 3600000,
  maxWatchedKeys: 10,
} as const;

/**
 * denokv's answer (status 400, plain text) to each request over a limit.
 *
 * @example
 * ```ts
 * import { DENOKV_MESSAGES } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DENOKV_MESSAGES.tooManyChecks, "Too many checks included in atomic write.");
 * ```
 */
export const DENOKV_MESSAGES = {
  keyTooLong: "A key exceeds the key size limit.",
  valueTooLong: "A value exceeds the value size limit.",
  readRangeTooLarge: "The total number of entries requested across read ranges in the read request is too large.",
  atomicWriteTooLarge: "The total size of the atomic write is too large.",
  tooManyReadRanges: "Too many read ranges requested in one read request.",
  tooManyWatchedKeys: "Too many keys watched in a single watch request.",
  tooManyChecks: "Too many checks included in atomic write.",
  tooManyMutations: "Too many mutations / enqueues included in atomic write.",
  tooManyQueueUndeliveredKeys: "Too many dead letter keys for a single queue message.",
  tooManyQueueBackoffIntervals: "Too many backoff intervals for a single queue message.",
  queueBackoffIntervalTooLarge: "A backoff interval exceeds the maximum allowed backoff interval.",
  invalidReadRangeLimit: "The read range limit of the snapshot read request is invalid.",
  invalidVersionstamp: "Invalid versionstamp.",
  invalidMutationKind: "Invalid mutation kind or arguments.",
  invalidMutationExpireAt: "Invalid mutation expire at.",
  invalidMutationEnqueueDeadline: "Invalid mutation enqueue deadline.",
} as const;

/**
 * Encodes a Deno KV key as the bytes KV Connect carries (Deno KV's ordered key encoding).
 *
 * @param key The key.
 * @returns Its bytes; byte order is key order.
 * @throws {TypeError} When a part is not a key part.
 *
 * @example
 * ```ts
 * import { encodeKey } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(encodeKey(["hi"]), new Uint8Array([0x02, 0x68, 0x69, 0x00]));
 * ```
 */
export function encodeKey(key: Deno.KvKey): Uint8Array {
  return encodeKeyBytes(key);
}

/**
 * Decodes the bytes of one key.
 *
 * @param bytes A key's bytes.
 * @returns The key.
 * @throws {TypeError} When the bytes are not exactly one key.
 *
 * @example
 * ```ts
 * import { decodeKey, encodeKey } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(decodeKey(encodeKey(["a", 1n, true])), ["a", 1n, true]);
 * ```
 */
export function decodeKey(bytes: Uint8Array): Deno.KvKey {
  return decodeKeyBytes(bytes);
}

/** The data path requests: snapshot read, atomic write and watch. */
export type DataPathRequest = "snapshot_read" | "atomic_write" | "watch";

/**
 * Encodes a data path request body (`SnapshotRead`, `AtomicWrite` or `Watch`
 * of denokv's `datapath.proto`) from a plain object with camelCase fields, for
 * tests that speak the protocol by hand.
 *
 * @param request Which request.
 * @param message Its fields.
 * @returns The protobuf bytes.
 *
 * @example
 * ```ts
 * import { encodeRequest } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(encodeRequest("watch", { keys: [{ key: new Uint8Array([1]) }] }), new Uint8Array([10, 3, 10, 1, 1]));
 * ```
 */
export function encodeRequest(request: DataPathRequest, message: Record<string, unknown>): Uint8Array {
  const types = { snapshot_read: pb.SnapshotRead, atomic_write: pb.AtomicWrite, watch: pb.Watch } as const;
  return encode(types[request], message);
}
