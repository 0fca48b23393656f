/**
 * The relay: forwards what a receiver accepted to HTTP destinations, signed
 * with Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), with retries and dead letters, on a local KV and
 * over KV Connect alike. See docs/relay.md.
 *
 * ```ts
 * import { createRelay } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const relay = createRelay(kv);
 * assert.deepEqual((await relay.deadLetters()).values, []);
 * await relay.close();
 * kv.close();
 * ```
 *
 * @module
 */

export { createRelay } from "./_relay.ts";
export { newDestinationSecret } from "./_destinations.ts";
export type * from "./_types.ts";
export type { RelayForward } from "./_forwards.ts";
// For the command line, which tells a damaged attempt record from none; not part of the package (webhooks/mod.ts
// re-exports the names above only).
export { damagedAttempts } from "./_dead.ts";
