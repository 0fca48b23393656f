/**
 * The types of the package's metrics: their names, what describes one, and
 * what an observer of `observeMetrics` is called with.
 *
 * @module
 */

/** A metric the package records. */
export type MetricName =
  | "webhooks.receiver.requests"
  | "webhooks.receiver.duration"
  | "webhooks.receiver.items"
  | "webhooks.commit.postbacks"
  | "webhooks.platform.requests"
  | "webhooks.platform.duration"
  | "webhooks.relay.attempts"
  | "webhooks.relay.duration";

/** What a metric is: its instrument, unit, attributes and, for a histogram, its bucket bounds. */
export interface MetricDescriptor {
  /** The OpenTelemetry name. */
  name: MetricName;
  /** A counter (a sum that only grows) or a histogram. */
  kind: "counter" | "histogram";
  /** The UCUM unit: `s`, or an annotation such as `{request}`. */
  unit: string;
  /** One line on what it counts. */
  description: string;
  /** The attribute keys its measurements carry. */
  attributes: readonly string[];
  /** A histogram's bucket upper bounds (OpenTelemetry's advice); absent for a counter. */
  buckets?: readonly number[];
}

/** The attributes of one measurement: one of a few fixed objects, never a secret. */
export type MetricAttributes = Readonly<Record<string, string>>;

/**
 * Called with each measurement: its metric's name, the value (a count, or
 * seconds, or a number of postbacks) and its attributes. The same
 * `attributes` object comes with every measurement of one set of values, so
 * an observer may cache what it derives from it by identity.
 */
export type MetricsObserver = (name: MetricName, value: number, attributes: MetricAttributes) => void;
