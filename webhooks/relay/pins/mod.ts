/**
 * Pinned destinations' marks: a worker started for one marks it held; one
 * that no worker held for ten minutes (by its marks, and by the remover's own
 * clock) is removed.
 *
 * @module
 */

export { PIN_ABANDONED_MS, PIN_QUIET_MS, PinMarks } from "./_pins.ts";
