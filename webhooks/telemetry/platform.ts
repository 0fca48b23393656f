// The platform operations' telemetry: a `webhooks.{operation}` span around
// each (its fetch spans, made by Deno, are its children, as is the renewal's
// span), and `webhooks.platform.requests` and `.duration` by operation and
// outcome. Attributes: the community's name, the operation and the outcome.
// An error marks the span's status; its message is not recorded (a
// platform's error may quote what it was sent).

import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import type { MetricAttributes } from "./types.ts";
import { measure, METRIC, otel, telemetryOff } from "./_record.ts";

/** The platform's `webhooks.operation` values (API.md). */
export type PlatformOperation = "register" | "update" | "unregister" | "renew" | "reconcile" | "list";

/** What an operation can tell its span once it knows it. */
export interface OperationScope {
  /** Names the community the operation is for (`webhooks.community`). */
  community(name: string | undefined): void;
}

const OPERATIONS: PlatformOperation[] = ["register", "update", "unregister", "renew", "reconcile", "list"];

/** One attributes object per operation and outcome, made once. */
const ATTRIBUTES = {} as Record<PlatformOperation, Record<"ok" | "error", MetricAttributes>>;
for (const operation of OPERATIONS) {
  ATTRIBUTES[operation] = {
    ok: Object.freeze({ "webhooks.operation": operation, "webhooks.outcome": "ok" }),
    error: Object.freeze({ "webhooks.operation": operation, "webhooks.outcome": "error" }),
  };
}

const UNNAMED: OperationScope = Object.freeze({ community() {} });

/**
 * Runs a platform operation with its telemetry: `fn` gets a scope to name
 * the community with, and runs with the operation's span active. `list`
 * (a page of reconcile's listing) is counted but has no span of its own.
 * With telemetry off, `fn` is simply called.
 */
export function platformOperation<T>(
  operation: PlatformOperation,
  fn: (scope: OperationScope) => Promise<T>,
  community?: string,
): Promise<T> {
  if (telemetryOff()) return fn(UNNAMED);
  return measured(operation, fn, community);
}

async function measured<T>(
  operation: PlatformOperation,
  fn: (scope: OperationScope) => Promise<T>,
  community: string | undefined,
): Promise<T> {
  const started = performance.now();
  const tracer = otel().tracer;
  let span: Span | undefined;
  if (tracer !== null && operation !== "list") {
    span = tracer.startSpan(`webhooks.${operation}`);
    if (community !== undefined) span.setAttribute("webhooks.community", community);
  }
  const scope: OperationScope = span === undefined ? UNNAMED : {
    community: (name) => void (name !== undefined && span.setAttribute("webhooks.community", name)),
  };
  let outcome: "ok" | "error" = "error";
  try {
    const result = span === undefined
      ? await fn(scope)
      : await context.with(trace.setSpan(context.active(), span), fn, undefined, scope);
    outcome = "ok";
    return result;
  } finally {
    const attributes = ATTRIBUTES[operation][outcome];
    measure(METRIC["webhooks.platform.requests"], 1, attributes);
    measure(METRIC["webhooks.platform.duration"], (performance.now() - started) / 1000, attributes);
    if (span !== undefined) {
      span.setAttribute("webhooks.outcome", outcome);
      if (outcome === "error") span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  }
}
