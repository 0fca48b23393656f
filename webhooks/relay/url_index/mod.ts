/**
 * The URL index of a relay's destinations, kept in the commit that adds,
 * changes or removes one: with `unique`, one URL never gets one hook's
 * postbacks from two unpinned destinations.
 *
 * @module
 */

export { indexRemove, indexWrite } from "./_url_index.ts";
