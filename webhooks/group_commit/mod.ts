/**
 * The group commit: jobs ready at the same time on one KV share one atomic
 * operation within the KV's limits, and a failed shared commit decides each
 * job again on its own. Public as `commitInGroup`; the receiver's `write`
 * mode submits to the same groups.
 *
 * @module
 */

export * from "./group_commit.ts";
export { submitToGroup } from "./_group_commit.ts";
export { InFlightCap, MAX_IN_FLIGHT, MIN_IN_FLIGHT, REMOTE_IN_FLIGHT } from "./_in_flight.ts";
