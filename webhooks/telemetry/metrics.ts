/**
 * The package's metrics (API.md, "Telemetry"): their names, units and
 * attributes, and {@linkcode observeMetrics}, which hands every measurement
 * to an in-process observer as well as to OpenTelemetry.
 *
 * @module
 */

import { observers } from "./_observers.ts";
import type { MetricDescriptor, MetricsObserver } from "./types.ts";

export type * from "./types.ts";

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The package's metrics, in API.md's order. Instruments are made from this
 * table once; a Prometheus exporter can make its own from it.
 *
 * @example Every metric is named under `webhooks.`
 * ```ts
 * import { WEBHOOKS_METRICS } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * assert.ok(WEBHOOKS_METRICS.every((metric) => metric.name.startsWith("webhooks.")));
 * assert.equal(WEBHOOKS_METRICS.find((metric) => metric.name === "webhooks.receiver.duration")?.unit, "s");
 * ```
 */
export const WEBHOOKS_METRICS: readonly MetricDescriptor[] = Object.freeze(
  [
    {
      name: "webhooks.receiver.requests",
      kind: "counter",
      unit: "{request}",
      description: "Requests a receiver answered, by outcome",
      attributes: ["webhooks.outcome"],
    },
    {
      name: "webhooks.receiver.duration",
      kind: "histogram",
      unit: "s",
      description: "Time from a request's arrival at a receiver to its answer",
      attributes: ["webhooks.outcome"],
      buckets: SECONDS,
    },
    {
      name: "webhooks.receiver.items",
      kind: "counter",
      unit: "{item}",
      description: "Items a receiver stored or handed on",
      attributes: [],
    },
    {
      name: "webhooks.commit.postbacks",
      kind: "histogram",
      unit: "{postback}",
      description: "Postbacks that shared one commit of the group commit",
      attributes: [],
      buckets: [1, 2, 4, 8, 16, 32, 64, 100],
    },
    {
      name: "webhooks.platform.requests",
      kind: "counter",
      unit: "{request}",
      description: "Calls to the platform, by operation and outcome",
      attributes: ["webhooks.operation", "webhooks.outcome"],
    },
    {
      name: "webhooks.platform.duration",
      kind: "histogram",
      unit: "s",
      description: "Time a call to the platform took, by operation and outcome",
      attributes: ["webhooks.operation", "webhooks.outcome"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    },
    {
      name: "webhooks.relay.attempts",
      kind: "counter",
      unit: "{attempt}",
      description: "Attempts the relay made to forward an entry to its destination, by outcome",
      attributes: ["webhooks.outcome"],
    },
    {
      name: "webhooks.relay.duration",
      kind: "histogram",
      unit: "s",
      description: "Time from a relay attempt's request to its answer (or its failure), by outcome",
      attributes: ["webhooks.outcome"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    },
  ] as const satisfies MetricDescriptor[],
);

/**
 * Hands every measurement the package takes from now on, in this process,
 * to `observer` as well as to OpenTelemetry's global meter: the console
 * serves them on `/metrics` whether or not `OTEL_DENO` is set. An observer
 * that throws is ignored (the measurement still counts elsewhere); it is
 * called synchronously on the request's path, so it should only count.
 *
 * @param observer called with each measurement
 * @returns a function that stops the calls
 * @throws {TypeError} when `observer` is not a function
 *
 * @example Count the requests a receiver answered
 * ```ts
 * import { createReceiver, createWebhooks, observeMetrics } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const receiver = createReceiver(createWebhooks(kv), { onPostback: () => {} });
 * const seen: string[] = [];
 * const stop = observeMetrics((name, value, attributes) => {
 *   if (name === "webhooks.receiver.requests") seen.push(`${attributes["webhooks.outcome"]} ${value}`);
 * });
 * const res = await receiver.handle(new Request("http://localhost/hooks", { method: "POST", body: "[]" }));
 * await res.body?.cancel();
 * stop();
 * assert.deepEqual(seen, ["unauthorized 1"]);
 * kv.close();
 * ```
 */
export function observeMetrics(observer: MetricsObserver): () => void {
  if (typeof observer !== "function") {
    throw new TypeError(`Cannot observe metrics: 'observer' must be a function, got ${typeof observer}`);
  }
  // A new array each time: a measurement being handed out keeps the list it started with.
  observers.list = [...observers.list, observer];
  return () => {
    observers.list = observers.list.filter((o) => o !== observer);
  };
}
