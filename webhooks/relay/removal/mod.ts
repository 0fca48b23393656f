/**
 * The waiting entries of a removed destination: deleted by its removal (a
 * pinned one's partition, an unpinned one's entries in the shared outbox),
 * and those a removal killed midway left by a worker's housekeeping; a
 * retry of one of them, refused by the removal's mark (a mark beside a live
 * record, junk, is cleared rather than obeyed).
 *
 * @module
 */

export { dropRemoved, markRemoved, removedState, settlePartitions, settleRemoved } from "./_removal.ts";
