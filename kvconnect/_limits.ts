// denokv's limits (`denokv/limits.rs`) and its refusals, checked in the order
// denokv's request conversion checks them (`proto/convert.rs`), each answered
// with denokv's status (400) and message.
import { type AtomicWriteMsg, M_DELETE, M_MAX, M_MIN, M_SET, M_SUM, type ReadRangeMsg } from "./_schema.ts";
import { DENOKV_LIMITS as LIMITS, DENOKV_MESSAGES as MESSAGES } from "./protocol.ts";
import { KvConnectError } from "./_values.ts";

export { LIMITS, MESSAGES };

/**
 * The largest request body denokv reads: its `Bytes` and `Json` extractors
 * stop at axum's default body limit, 2 MiB (an atomic write at denokv's
 * limits, 819,200 bytes of keys and values, fits with its framing).
 */
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
/** axum's answer (413) to a body past that limit. */
export const REQUEST_TOO_LARGE = "Failed to buffer the request body: length limit exceeded";

function refuse(message: string): never {
  throw new KvConnectError(message);
}

/** Refuses a snapshot read that denokv refuses. */
export function checkRead(ranges: ReadRangeMsg[]): void {
  if (ranges.length > LIMITS.maxReadRanges) refuse(MESSAGES.tooManyReadRanges);
  let total = 0;
  for (const range of ranges) {
    if (!(range.limit > 0)) refuse(MESSAGES.invalidReadRangeLimit);
    if (range.start.length > LIMITS.maxReadKeyBytes) refuse(MESSAGES.keyTooLong);
    if (range.end.length > LIMITS.maxReadKeyBytes) refuse(MESSAGES.keyTooLong);
    total += range.limit;
  }
  if (total > LIMITS.maxReadEntries) refuse(MESSAGES.readRangeTooLarge);
}

/** Refuses an atomic write that denokv refuses, counting its size as denokv does. */
export function checkWrite(write: AtomicWriteMsg, now = Date.now()): void {
  if (write.checks.length > LIMITS.maxChecks) refuse(MESSAGES.tooManyChecks);
  if (write.mutations.length + write.enqueues.length > LIMITS.maxMutations) refuse(MESSAGES.tooManyMutations);
  let size = 0;
  for (const check of write.checks) {
    if (check.key.length > LIMITS.maxReadKeyBytes) refuse(MESSAGES.keyTooLong);
    size += check.key.length;
    if (check.versionstamp.length !== 0 && check.versionstamp.length !== 10) refuse(MESSAGES.invalidVersionstamp);
  }
  for (const mutation of write.mutations) {
    if (mutation.key.length > LIMITS.maxWriteKeyBytes) refuse(MESSAGES.keyTooLong);
    size += mutation.key.length;
    const valueSize = mutation.value?.data.length ?? 0;
    if (valueSize > LIMITS.maxValueBytes) refuse(MESSAGES.valueTooLong);
    size += valueSize;
    const needsValue = mutation.mutationType === M_SET || mutation.mutationType === M_SUM ||
      mutation.mutationType === M_MIN || mutation.mutationType === M_MAX;
    if (!(needsValue ? mutation.value : mutation.mutationType === M_DELETE)) refuse(MESSAGES.invalidMutationKind);
    if (mutation.expireAtMs < -1) refuse(MESSAGES.invalidMutationExpireAt);
  }
  for (const enqueue of write.enqueues) {
    if (enqueue.payload.length > LIMITS.maxValueBytes) refuse(MESSAGES.valueTooLong);
    size += enqueue.payload.length;
    if (enqueue.keysIfUndelivered.length > LIMITS.maxQueueUndeliveredKeys) {
      refuse(MESSAGES.tooManyQueueUndeliveredKeys);
    }
    for (const key of enqueue.keysIfUndelivered) {
      if (key.length > LIMITS.maxWriteKeyBytes) refuse(MESSAGES.keyTooLong);
      size += key.length;
    }
    if (enqueue.backoffSchedule.length > LIMITS.maxQueueBackoffIntervals) {
      refuse(MESSAGES.tooManyQueueBackoffIntervals);
    }
    for (const interval of enqueue.backoffSchedule) {
      if (interval > LIMITS.maxQueueBackoffMs) refuse(MESSAGES.queueBackoffIntervalTooLarge);
      size += 4;
    }
    if (enqueue.deadlineMs < 0 || now - enqueue.deadlineMs > LIMITS.maxQueueDelayMs) {
      refuse(MESSAGES.invalidMutationEnqueueDeadline);
    }
  }
  if (size > LIMITS.maxTotalMutationBytes) refuse(MESSAGES.atomicWriteTooLarge);
}

/** Refuses a watch that denokv refuses. */
export function checkWatch(keys: Uint8Array[]): void {
  if (keys.length > LIMITS.maxWatchedKeys) refuse(MESSAGES.tooManyWatchedKeys);
  for (const key of keys) {
    if (key.length > LIMITS.maxWriteKeyBytes) refuse(MESSAGES.keyTooLong);
  }
}
