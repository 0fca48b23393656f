/**
 * Receiving the platform's postbacks: `createReceiver` and its types. One
 * postback goes through `receiver.ts` (the order of checks), `_body.ts`,
 * `_receiver_resolve.ts` with `_receiver_cache.ts`, `claim/` (the replay
 * claims), and in `write` mode `_receive_write.ts` into the group commit.
 *
 * @module
 */

export * from "./receiver.ts";
// For `cli receive`, which says a refusal whose cause is the stored community (not public).
export { DAMAGED_COMMUNITY, NO_VERIFYING_SECRET } from "./_receiver_resolve.ts";
