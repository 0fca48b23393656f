// denokv's limits (`denokv/limits.rs`) and its refusals, checked in the order
// denokv's request conversion checks them (`proto/convert.rs`), each answered
// with denokv's status (400) and message.
import { type AtomicWriteMsg, M_DELETE, M_MAX, M_MIN, M_SET, M_SUM, type ReadRangeMsg } from "./_schema.ts";
import { KvConnectError } from "./_values.ts";

/** denokv's published limits. */
export const LIMITS = {
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

/** denokv's messages for each refusal. */
export const MESSAGES = {
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
