// The relay's telemetry: a `webhooks.relay.deliver` span around each attempt
// (Deno's fetch span is its child), and `webhooks.relay.attempts` and
// `.duration` by outcome. Attributes: the outcome, the destination's id, the
// entry's id (its `webhook-id`) and the answer's status: never the URL (its
// query may hold a token), the secret or a signature. Metrics carry the
// outcome alone (a destination's id would make a series per destination).

import { ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import { intAttribute, measure, METRIC, otel, telemetryOff } from "./_record.ts";
import { endLater, spanTime } from "./_ended.ts";
import { inSpan, outcomeAttributes, type SpanTelemetry, UNTRACED } from "./_span.ts";

/**
 * The relay's `webhooks.outcome` values (docs/observability.md): `delivered`
 * (a 2xx), `failed` (any other answer, no answer, a refused address: tried
 * again), `dead` (the failed attempt that made the entry a dead letter),
 * `gone` (a 410, which disables the destination).
 */
export type RelayOutcome = "delivered" | "failed" | "dead" | "gone";

const ATTRIBUTES = outcomeAttributes<RelayOutcome>(["delivered", "failed", "dead", "gone"]);

/**
 * The outcome of an attempt: its answer's status (0: none), and whether it made the entry a dead letter (one was
 * written: a last attempt whose lease was lost, or whose destination was removed meanwhile, wrote none and is
 * `failed`).
 */
export function relayOutcome(status: number, dead: boolean): RelayOutcome {
  if (status >= 200 && status < 300) return "delivered";
  if (!dead) return "failed";
  return status === 410 ? "gone" : "dead";
}

/** An attempt's telemetry while it runs: its `webhooks.relay.deliver` span (none without a tracer). */
export type RelayTelemetry = SpanTelemetry;

/**
 * Whether `url` has a query, userinfo or a fragment (a token's usual places; a URL that does not parse is taken as
 * holding one): Deno's fetch span exports the URL whole in `url.full`, the fragment too, though it is never sent.
 */
function holdsSecrets(url: string): boolean {
  const parsed = URL.parse(url);
  if (parsed === null) return true;
  return parsed.search !== "" || parsed.hash !== "" || parsed.username !== "" || parsed.password !== "";
}

/**
 * Starts an attempt's telemetry: `undefined` when telemetry is off (then the
 * relay does nothing more for it), else its span (a root span), with the
 * entry's and the destination's ids. For a destination `url` with a query
 * (or userinfo, a fragment, or one that does not parse) the fetch runs under
 * the span's context marked not sampled:
 * Deno's fetch span records `url.full` and `url.query`, and a parent-based
 * sampler (`OTEL_TRACES_SAMPLER=parentbased_always_on`) then records none.
 */
export function relayStarted(entryId: string, destinationId: string, url = ""): RelayTelemetry | undefined {
  if (telemetryOff()) return undefined;
  const tracer = otel().tracer;
  if (tracer === null) return UNTRACED;
  // A root span: a worker started inside some request's span would otherwise put every attempt under it.
  const span = tracer.startSpan("webhooks.relay.deliver", {
    root: true,
    startTime: spanTime(performance.now()),
    attributes: { "webhooks.relay.entry": entryId, "webhooks.relay.destination": destinationId },
  });
  const parent = holdsSecrets(url)
    ? trace.wrapSpanContext({ ...span.spanContext(), traceFlags: TraceFlags.NONE })
    : span;
  return { span, context: trace.setSpan(ROOT_CONTEXT, parent) };
}

/** Runs `fn` with the attempt's span active, so that its fetch span is the span's child. */
export const inRelay: typeof inSpan = inSpan;

/**
 * Records an attempt once its end is committed: its outcome (`dead`: its dead letter was written) and duration
 * (`durationMs`, the request to the answer); ends its span at `endedAt` (`performance.now()` when the answer was
 * in). An attempt cut short by the worker's stop (`aborted`) is no attempt: not counted, its span ended without an
 * outcome.
 */
export function relayEnded(
  t: RelayTelemetry | undefined,
  attempt: { status: number; durationMs: number; aborted?: boolean },
  dead: boolean,
  endedAt: number = performance.now(),
): void {
  if (t === undefined) return;
  const span = t.span;
  if (attempt.aborted) {
    if (span !== undefined) endLater(span, endedAt);
    return;
  }
  const outcome = relayOutcome(attempt.status, dead);
  const attributes = ATTRIBUTES[outcome];
  measure(METRIC["webhooks.relay.attempts"], 1, attributes);
  measure(METRIC["webhooks.relay.duration"], attempt.durationMs / 1000, attributes);
  if (span === undefined) return;
  span.setAttributes(
    attempt.status === 0
      ? { "webhooks.outcome": outcome }
      : { "webhooks.outcome": outcome, "http.response.status_code": intAttribute(attempt.status) },
  );
  if (outcome !== "delivered") span.setStatus({ code: SpanStatusCode.ERROR });
  endLater(span, endedAt);
}
