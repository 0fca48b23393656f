// What a receiver request and a relay attempt share while they run: their
// span and the context that makes it active, the empty value of telemetry on
// without a tracer, running code inside the span, and one attributes object
// per outcome for their metrics.

import { type Context, context, type Span } from "@opentelemetry/api";
import type { MetricAttributes } from "./types.ts";

/** A request's or an attempt's telemetry while it runs. */
export interface SpanTelemetry {
  /** Its span; absent when no tracer is registered. */
  span?: Span;
  /** The active context with that span. */
  context?: Context;
}

/** Telemetry on with no tracer: measured, no span. */
export const UNTRACED: SpanTelemetry = Object.freeze({});

/** Runs `fn` with `t`'s span active (as it is without one), so that the spans made inside are its children. */
export function inSpan<A extends unknown[], R>(t: SpanTelemetry | undefined, fn: (...args: A) => R, ...args: A): R {
  return t?.context === undefined ? fn(...args) : context.with(t.context, fn, undefined, ...args);
}

/** One frozen `webhooks.outcome` attributes object per outcome, made once: a measurement allocates nothing. */
export function outcomeAttributes<O extends string>(outcomes: readonly O[]): Readonly<Record<O, MetricAttributes>> {
  const attributes = {} as Record<O, MetricAttributes>;
  for (const outcome of outcomes) attributes[outcome] = Object.freeze({ "webhooks.outcome": outcome });
  return Object.freeze(attributes);
}
