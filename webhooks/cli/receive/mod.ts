/**
 * The `receive` command: a receiver serving postbacks, one JSON line per item
 * on stdout; its stderr lines for answers of 500 or more, coalesced
 * (`_failure_lines.ts`), and for a tenant whose stored community refuses
 * every postback (`_stored_faults.ts`).
 *
 * @module
 */

export { receive, type ReceiveContext } from "./_receive.ts";
export { type FailureClock, type FailureLines, failureLines, QUIET_GAP_MS } from "./_failure_lines.ts";
