/**
 * The cursors of the pages of dead letters, each taken back only by the list
 * that gave it: KV refuses only one it cannot decode, and read a made-up one
 * as an empty last page, another list's as a place in this one.
 *
 * @module
 */

export { type CursorShape, kvCursorOf, pageCursor } from "./_cursor.ts";
