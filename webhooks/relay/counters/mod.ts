/**
 * The relay's counters, bumped with `sum`: one edited into junk is set back to a counter rather than refusing every
 * commit that bumps it.
 *
 * @module
 */

export { commitMending, isCounter, mendCounter, mendCounters } from "./_counters.ts";
