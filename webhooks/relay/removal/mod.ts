/**
 * The waiting entries of a removed destination: deleted by its removal (a
 * pinned one's partition, an unpinned one's entries in the shared outbox),
 * and those a removal killed midway left by a worker's housekeeping; a
 * retry of one of them, refused by the removal's mark.
 *
 * @module
 */

export { dropRemoved, markRemoved, settlePartitions, settleRemoved } from "./_removal.ts";
