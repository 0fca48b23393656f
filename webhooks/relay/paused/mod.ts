/**
 * The entries of a disabled destination: kept untried while it is disabled,
 * moved back to the outbox when it is enabled again, deleted with it.
 *
 * @module
 */

export { dropPaused, settlePaused, unpark } from "./_paused.ts";
