/**
 * The cursors of paged lists (the relay's dead letters, the store's records
 * and communities), each taken back only by the list that gave it: KV refuses
 * only one it cannot decode, and read a made-up one as an empty last page or
 * the list's start, another list's as a place in this one.
 *
 * @module
 */

export { type CursorKeyPart, pageCursor, takeCursor } from "./_cursor.ts";
