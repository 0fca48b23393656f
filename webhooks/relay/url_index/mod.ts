/**
 * The URL index of a relay's destinations: one URL never gets one hook's
 * postbacks from two unpinned destinations, checked in the commit that adds
 * or changes a destination.
 *
 * @module
 */

export { clashIn, clashMessage, readSlot, type UrlClash, type UrlSlot, writeSlot } from "./_url_index.ts";
