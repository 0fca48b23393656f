/**
 * KV key builders of the delivery log, kept in one place. Every key starts
 * with `"console_"` so it never meets Module A's collections.
 *
 * @module
 */

/** Key of one stored delivery with its payload. */
export function deliveryKey(id: string): Deno.KvKey {
  return ["console_delivery_body", id];
}

/** Key of the summary of delivery number `seq` of the sequence. */
export function deliveryViewKey(seq: number): Deno.KvKey {
  return ["console_delivery_log", seq];
}

/** Prefix of all delivery summaries, oldest first. */
export const DELIVERY_VIEW_PREFIX: Deno.KvKey = ["console_delivery_log"];

/** Index key of delivery number `seq` by webhook record id (earlier versions; now {@linkcode hookPackKey}). */
export function deliveryByHookKey(hookId: string, seq: number): Deno.KvKey {
  return ["console_delivery_log_by_hook", hookId, seq];
}

/**
 * The hook index's mark: the number of the last delivery its packs cover.
 * Deliveries above it are found in the log itself.
 */
export const HOOK_INDEX_MARK_KEY: Deno.KvKey = ["console_delivery_hook_mark"];

/** Key of one pack of a hook's delivery summaries, by the number of the last summary in it. */
export function hookPackKey(hookId: string, lastSeq: number): Deno.KvKey {
  return ["console_delivery_hook_pack", hookId, lastSeq];
}

/** Prefix of one hook's packs, in order of their last number. */
export function hookPackPrefix(hookId: string): Deno.KvKey {
  return ["console_delivery_hook_pack", hookId];
}

/** Marker of a stored postback: a retry of it stores nothing again. */
export function postbackMarkerKey(postbackId: string): Deno.KvKey {
  return ["console_postback", postbackId];
}

/** How the request of an accepted postback went (headers without the signature, verdict figures). */
export function attemptKey(postbackId: string): Deno.KvKey {
  return ["console_attempt", postbackId];
}

/**
 * How the request of a postback stored by the receiver's `write` went: keyed
 * by the number of its first delivery, so the entries are written in order.
 */
export function attemptAtKey(firstSeq: number): Deno.KvKey {
  return ["console_attempt_at", firstSeq];
}

/**
 * A batch of the request details of postbacks stored by the receiver's
 * `write`, keyed by the lowest and the highest first number it holds: one
 * entry for many postbacks, deleted once trimming passed its highest.
 */
export function attemptBatchKey(lowest: number, highest: number): Deno.KvKey {
  return ["console_attempt_batch", lowest, highest];
}

/** Prefix of the batches of request details. */
export const ATTEMPT_BATCH_PREFIX: Deno.KvKey = ["console_attempt_batch"];

/** The lease of writer slot `slot` (0-31) of the log's numbers: one process numbers in it at a time. */
export function slotKey(slot: number): Deno.KvKey {
  return ["console_delivery_slot", slot];
}

/** Prefix of the writer slots' leases. */
export const SLOT_PREFIX: Deno.KvKey = ["console_delivery_slot"];

/** Shards of the count of rows written ({@linkcode writtenKey}); the live view watches them all. */
export const WRITTEN_SHARDS = 8;

/**
 * Rows written to the log by the slots of one shard (`slot % 8`), a
 * `Deno.KvU64` bumped with `sum` (no check) in their commits: the live
 * view wakes on it and trimming counts the log's rows by it. No key is
 * written by every process.
 */
export function writtenKey(shard: number): Deno.KvKey {
  return ["console_delivery_written", shard];
}

/** All the written shards' keys, in shard order: the live view watches them, trimming sums them. */
export const WRITTEN_KEYS: Deno.KvKey[] = Array.from({ length: WRITTEN_SHARDS }, (_, i) => writtenKey(i));

/** Rows trimmed from the log (or found gone), a `Deno.KvU64` bumped by the trimmer. */
export const TRIMMED_KEY: Deno.KvKey = ["console_delivery_trimmed"];

/**
 * The trimmer's last count of the log: when it was made (`at`, ms) and the
 * number of the oldest row it found or below (`oldest`), so that the next
 * holder of the lease trims by it instead of counting the log again.
 */
export const TRIM_COUNT_KEY: Deno.KvKey = ["console_delivery_trim_count"];

/** The trimming lease: one process trims at a time. */
export const TRIM_LEASE_KEY: Deno.KvKey = ["console_delivery_trim_lease"];
