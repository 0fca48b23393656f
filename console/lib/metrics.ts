/**
 * The console's Prometheus metrics: the package's metrics (its table and
 * observer, `WEBHOOKS_METRICS` and `observeMetrics`), counted since the
 * console started whether or not `OTEL_DENO` is set, and the process's own
 * (memory, event-loop lag), in the Prometheus text format through
 * `prom-client`.
 *
 * @module
 */

import client from "prom-client";

/** A metric of the source, as the package's `MetricDescriptor`. */
export interface SourceMetric {
  name: string;
  kind: "counter" | "histogram";
  unit: string;
  description: string;
  attributes: readonly string[];
  buckets?: readonly number[];
}

/** Where measurements come from: the package's table and `observeMetrics`. */
export interface MetricsSource {
  metrics: readonly SourceMetric[];
  observe(observer: (name: string, value: number, attributes: Readonly<Record<string, string>>) => void): () => void;
}

/** The console's metrics while it runs. */
export interface ConsoleMetrics {
  /** The exposition's content type (Prometheus text 0.0.4). */
  readonly contentType: string;
  /** Everything in the Prometheus text format. */
  text(): Promise<string>;
  /** Stops counting. */
  close(): void;
}

/** Prometheus suffixes of UCUM units (OpenTelemetry's compatibility rules); an annotation such as `{request}` has none. */
const UNIT_SUFFIXES: Record<string, string> = { s: "seconds", ms: "milliseconds", By: "bytes" };

/**
 * A metric's Prometheus name, by OpenTelemetry's rules: characters other
 * than letters, digits, `_` and `:` become `_`, the unit's suffix follows,
 * and a counter ends in `_total` (`webhooks.receiver.duration` in `s` is
 * `webhooks_receiver_duration_seconds`).
 */
export function prometheusName(metric: Pick<SourceMetric, "name" | "kind" | "unit">): string {
  let name = metric.name.replace(/[^a-zA-Z0-9_:]/g, "_");
  const suffix = UNIT_SUFFIXES[metric.unit];
  if (suffix && !name.endsWith(`_${suffix}`)) name += `_${suffix}`;
  if (metric.kind === "counter") name += "_total";
  return name;
}

/** An attribute key as a Prometheus label name. */
export function labelName(key: string): string {
  return key.replace(/[^a-zA-Z0-9_]/g, "_");
}

let processRegistry: client.Registry | undefined;

/** The process's own metrics, one set per process (prom-client's event-loop monitor runs once). */
function processMetrics(): client.Registry {
  if (processRegistry === undefined) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 });
  }
  return processRegistry;
}

type Recorder = (labels: client.LabelValues<string>, value: number) => void;

/**
 * Starts counting the source's measurements into Prometheus metrics of the
 * same names (converted by {@linkcode prometheusName}), beside the
 * process's own.
 */
export function createConsoleMetrics(source: MetricsSource): ConsoleMetrics {
  const registry = new client.Registry();
  const recorders = new Map<string, Recorder>();
  for (const metric of source.metrics) {
    const common = {
      name: prometheusName(metric),
      help: metric.description,
      labelNames: metric.attributes.map(labelName),
      registers: [registry],
    };
    if (metric.kind === "counter") {
      const counter = new client.Counter(common);
      recorders.set(metric.name, (labels, value) => counter.inc(labels, value));
    } else {
      const histogram = new client.Histogram({
        ...common,
        buckets: [...(metric.buckets ?? client.linearBuckets(1, 1, 10))],
      });
      recorders.set(metric.name, (labels, value) => histogram.observe(labels, value));
    }
  }
  // The package hands the same attributes object with every measurement of one set of values.
  const labelsOf = new WeakMap<object, client.LabelValues<string>>();
  const stop = source.observe((name, value, attributes) => {
    let labels = labelsOf.get(attributes);
    if (labels === undefined) {
      labels = Object.fromEntries(Object.entries(attributes).map(([key, v]) => [labelName(key), v]));
      labelsOf.set(attributes, labels);
    }
    recorders.get(name)?.(labels, value);
  });
  const merged = client.Registry.merge([processMetrics(), registry]);
  return {
    contentType: merged.contentType,
    text: () => merged.metrics(),
    close: stop,
  };
}
