// The cursors of the store's pages (records of every tenant or of one, and
// communities): KV's cursor with a tag of its list, taken back only by that
// list (see webhooks/cursor/).

import { pageCursor, takeCursor } from "../cursor/mod.ts";

/** A list of the store: every record, one tenant's records, or the communities. */
export type StoreList = { records: string | undefined } | "communities";

/** The tag's name of a list: what it lists and its filter. */
function listName(list: StoreList): string {
  return JSON.stringify(list === "communities" ? ["communities"] : ["webhooks", list.records ?? null]);
}

/** Every list of the store is keyed, past its prefix, by one string: a record's id or a tenant id. */
const oneString = (parts: unknown[]) => parts.length === 1 && typeof parts[0] === "string";

/**
 * KV's cursor in a page cursor of `list`; `undefined` for none (absent or `""`: the first page). Any other string
 * that no page of this list gave is a `TypeError` naming `cursor`, before anything is read.
 */
export function kvCursorFor(cursor: string | null | undefined, list: StoreList, action: string): string | undefined {
  return takeCursor(cursor, listName(list), oneString, action);
}

/** The cursor a page of `list` gives where KV gave `kvCursor` (`""`, the last page, stays `""`). */
export function storePageCursor(kvCursor: string, list: StoreList): string {
  return pageCursor(kvCursor, listName(list));
}
