/**
 * The waiting entries of a removed destination: deleted by its removal (a
 * pinned one's partition, an unpinned one's entries in the shared outbox),
 * and those a removal killed midway left by a worker's housekeeping.
 *
 * @module
 */

export { dropPartition, dropShared, settlePartitions } from "./_removal.ts";
