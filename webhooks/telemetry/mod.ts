/**
 * The package's telemetry (API.md, "Telemetry"): what the receiver, the
 * platform operations and the relay record through `npm:@opentelemetry/api` under the
 * scope `@community-webhooks/sdk`, and the in-process observers of
 * {@linkcode observeMetrics}. Internal: `webhooks/mod.ts` exports only
 * `observeMetrics`, `WEBHOOKS_METRICS` and their types.
 *
 * @module
 */

export * from "./metrics.ts";
export * from "./receive.ts";
export * from "./platform.ts";
export * from "./relay.ts";
export { resetTelemetry, SCOPE, telemetryOff } from "./_record.ts";
export { DELAY_MS as HANDOVER_DELAY_MS, flushEnded } from "./_ended.ts";
