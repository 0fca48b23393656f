/**
 * Module A: registers webhooks with a community platform (the Jive REST API
 * v3) and keeps their records in Deno KV, with indexes by tenant and by the
 * hook's own URL.
 *
 * ```ts
 * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const hooks = createWebhooks(kv);
 * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
 * assert.deepEqual((await hooks.findByTenantID("t1")).map((h) => h.id), ["h1"]);
 * kv.close();
 * ```
 *
 * @module
 */

export { createWebhooks, type Webhooks, type WebhooksOptions } from "./webhooks.ts";
export * from "./types.ts";
export * from "./options.ts";
export * from "./errors.ts";
export * from "./events.ts";
export { type Communities, createCommunities, type WebhookLookups, type WebhookStore } from "./store/mod.ts";
export type { WebhookRegistration } from "./platform/mod.ts";
export {
  type JiveExtnParams,
  type JiveExtnRejected,
  type JiveExtnVerification,
  type JiveExtnVerified,
  signJiveExtn,
  verifyJiveExtn,
  type VerifyJiveExtnOptions,
} from "./signature/mod.ts";
export {
  createReceiver,
  type Postback,
  type Receiver,
  type ReceiverAcceptInput,
  type ReceiverAttempt,
  type ReceiverOptions,
} from "./receiver/mod.ts";
export { commitInGroup, type GroupJob, type GroupResult } from "./group_commit/mod.ts";
export { retryWhileLocked } from "./kv/mod.ts";
export { isPrivateAddress, keepServing, type KeepServingOptions } from "./net/mod.ts";
export { createRelay, newDestinationSecret } from "./relay/mod.ts";
export type {
  DeadLetter,
  DeadLetterPage,
  DeadLetterQuery,
  Destination,
  DestinationInput,
  DestinationPatch,
  Destinations,
  NewDestination,
  Relay,
  RelayAttempt,
  RelayForward,
  RelayOptions,
  RelayWorker,
  RunOptions,
  StoredDestination,
} from "./relay/mod.ts";
export {
  type MetricAttributes,
  type MetricDescriptor,
  type MetricName,
  type MetricsObserver,
  observeMetrics,
  WEBHOOKS_METRICS,
} from "./telemetry/mod.ts";
