/**
 * The console's delivery log: every item of the postbacks the receiver
 * accepted and every request it refused, kept in KV with a retention limit,
 * paged newest first, by hook, with a live feed. The web concerns (pages,
 * sessions, the receiver's route) are `console/lib/` and `console/routes/`;
 * they use the log through this face only.
 *
 * @module
 */

export * from "./_store.ts";
export type { DeliveryView } from "./_view.ts";
export { Allocator, EPOCH, LEASE_MS, numberAt, PER_SLOT, SLOTS } from "./_numbers.ts";
