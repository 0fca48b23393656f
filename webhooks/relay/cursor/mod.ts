/**
 * Which cursors a page of dead letters gives: KV refuses only one it cannot
 * decode, and read a made-up one as an empty last page.
 *
 * @module
 */

export { type CursorShape, isPageCursor } from "./_cursor.ts";
