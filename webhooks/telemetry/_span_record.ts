// A request's spans as plain data: what the receiver saw (its parent, its
// times, its attributes, its commits), kept while it is handled and made into
// `webhooks.receive` and `webhooks.commit` spans afterwards, on the span
// thread (_span_thread.ts) or, when that cannot run, on this one. Plain data
// so that it crosses to a worker by structured clone.

import {
  type Attributes,
  ROOT_CONTEXT,
  type SpanContext,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";

/** What a span's parent is known by: a trace, a span and the trace's flags (no trace state: it does not clone). */
export interface ParentRef {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/** One commit that stored the request's postback, or tried to. */
export interface CommitRecord {
  /** Start and end, epoch ms. */
  start: number;
  end: number;
  /** How many postbacks shared it; absent when it was not made. */
  postbacks?: number;
  /** Whether it stored this postback. */
  ok: boolean;
}

/** One request's `webhooks.receive` span and the `webhooks.commit` spans under it. */
export interface SpanRecord {
  /** The span that was active when the request came in (Deno's server span), if any. */
  parent?: ParentRef;
  /** Start and end, epoch ms. */
  start: number;
  end: number;
  /** `webhooks.outcome`, `webhooks.items`, `webhooks.tenant_id`: fixed words, a count and the tenant the header named. */
  attributes: Attributes;
  /** The answer was a 500. */
  error: boolean;
  commits: CommitRecord[];
}

/** The active span's reference, as a record's parent. */
export function parentOf(context: SpanContext | undefined): ParentRef | undefined {
  return context === undefined
    ? undefined
    : { traceId: context.traceId, spanId: context.spanId, traceFlags: context.traceFlags };
}

/** Makes a record's spans through `tracer` and ends them at their recorded times. */
export function makeSpans(tracer: Tracer, record: SpanRecord): void {
  const parent = record.parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, record.parent);
  const span = tracer.startSpan("webhooks.receive", { startTime: record.start, attributes: record.attributes }, parent);
  if (record.error) span.setStatus({ code: SpanStatusCode.ERROR });
  const inside = trace.setSpan(ROOT_CONTEXT, span);
  for (const commit of record.commits) {
    const attributes = commit.postbacks === undefined ? undefined : { "webhooks.commit.postbacks": commit.postbacks };
    const child = tracer.startSpan("webhooks.commit", { startTime: commit.start, attributes }, inside);
    if (!commit.ok) child.setStatus({ code: SpanStatusCode.ERROR });
    child.end(commit.end);
  }
  span.end(record.end);
}
