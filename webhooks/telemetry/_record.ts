// Where measurements go: OpenTelemetry's global meter and tracer, found once
// (on first use), and the observers of observeMetrics.
//
// OpenTelemetry's global MeterProvider is no proxy: a meter taken before a
// provider is registered stays a no-op for good. Deno registers its providers
// before any module runs when OTEL_DENO=true, so the first use finds them; a
// program that registers an SDK's providers itself does so before the first
// request. Found none of either and no observer, telemetry is off: a request
// pays for one property read and a comparison.

import {
  type Counter,
  createNoopMeter,
  type Histogram,
  metrics,
  ProxyTracer,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { WEBHOOKS_METRICS } from "./metrics.ts";
import type { MetricAttributes, MetricName } from "./types.ts";
import { observers } from "./_observers.ts";

/** The instrumentation scope of every instrument and span. */
export const SCOPE = "@community-webhooks/sdk";

/** OpenTelemetry as found on first use. */
export interface Global {
  /** The instruments, in `WEBHOOKS_METRICS`'s order; `null` when the global meter is the no-op one. */
  instruments: (Counter | Histogram)[] | null;
  /** The tracer; `null` when no tracer provider is registered. */
  tracer: Tracer | null;
  /**
   * Whether the tracer is Deno's built-in one (`OTEL_DENO=true`), whose
   * exporter sends every JS number as a double and only a bigint as an int.
   */
  denoTracer?: boolean;
}

let found: Global | undefined;

/** The global instruments and tracer, made on the first call. */
export function otel(): Global {
  return found ??= find();
}

/** What was made for the global meter provider last found: made again only for another provider. */
let made: { provider: object; instruments: (Counter | Histogram)[] | null } | undefined;

function find(): Global {
  const provider = metrics.getMeterProvider();
  if (made?.provider !== provider) {
    const meter = provider.getMeter(SCOPE);
    made = {
      provider,
      instruments: meter === createNoopMeter()
        ? null
        : WEBHOOKS_METRICS.map((metric) =>
          metric.kind === "counter"
            ? meter.createCounter(metric.name, { unit: metric.unit, description: metric.description })
            : meter.createHistogram(metric.name, {
              unit: metric.unit,
              description: metric.description,
              advice: { explicitBucketBoundaries: [...metric.buckets!] },
            })
        ),
    };
  }
  // Without a registered provider the API hands out a proxy that makes non-recording spans.
  const tracer = trace.getTracer(SCOPE);
  return {
    instruments: made.instruments,
    tracer: tracer instanceof ProxyTracer ? null : tracer,
    denoTracer: trace.getTracerProvider() === Deno.telemetry?.tracerProvider,
  };
}

/**
 * A count as a span attribute that is exported as an int (API.md's
 * `webhooks.items` (int)): a bigint for Deno's built-in exporter, which
 * sends a number as a double; the number for any other tracer (an SDK's
 * OTLP exporter sends an integral number as an int, and drops a bigint).
 */
export function intAttribute(count: number): number {
  return otel().denoTracer ? BigInt(count) as unknown as number : count;
}

/** Whether nothing would take a measurement or a span: no global meter, no tracer, no observer. */
export function telemetryOff(): boolean {
  const global = found ?? otel();
  return global.instruments === null && global.tracer === null && observers.list.length === 0;
}

/**
 * Forgets what was found, so that the next use looks again: for a program
 * (or a bench) that registers or removes providers after first use; the
 * instruments are made again only for another meter provider. With
 * `off`, OpenTelemetry is taken as absent until the next reset, as in a
 * process without `OTEL_DENO` (the bench compares the two in one process).
 */
export function resetTelemetry(off = false): void {
  found = off ? { instruments: null, tracer: null } : undefined;
}

/** Index of each metric in `WEBHOOKS_METRICS` (and in `Global.instruments`). */
export const METRIC: Readonly<Record<MetricName, number>> = Object.freeze(
  Object.fromEntries(WEBHOOKS_METRICS.map((metric, i) => [metric.name, i])) as Record<MetricName, number>,
);

const NAMES: MetricName[] = WEBHOOKS_METRICS.map((metric) => metric.name);
const COUNTER: boolean[] = WEBHOOKS_METRICS.map((metric) => metric.kind === "counter");
const NONE: MetricAttributes = Object.freeze({});

/** Takes one measurement of metric `index`: to the global instrument and every observer. */
export function measure(index: number, value: number, attributes: MetricAttributes = NONE): void {
  const instrument = otel().instruments?.[index];
  if (instrument !== undefined) {
    if (COUNTER[index]) (instrument as Counter).add(value, attributes);
    else (instrument as Histogram).record(value, attributes);
  }
  const list = observers.list;
  for (let i = 0; i < list.length; i++) {
    try {
      list[i](NAMES[index], value, attributes);
    } catch {
      // An observer's failure never reaches the request.
    }
  }
}
