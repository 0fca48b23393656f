// The receiver's telemetry: a `webhooks.receive` span around each request
// (a child of the server span when Deno.serve made one), its outcome, time
// and items as metrics, and a `webhooks.commit` span for the commit that
// stored it. Every attribute is a fixed word, a count or the tenant id the
// header named: never the header, a secret or a body. Both spans take their
// times from performance.now() readings and end in batches (_ended.ts).

import { context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { intAttribute, measure, METRIC, otel, telemetryOff } from "./_record.ts";
import { endLater, spanTime } from "./_ended.ts";
import { inSpan, outcomeAttributes, type SpanTelemetry, UNTRACED } from "./_span.ts";

/** The receiver's `webhooks.outcome` values (API.md). */
export type ReceiverOutcome =
  | "accepted"
  | "duplicate"
  | "in_progress"
  | "unauthorized"
  | "bad_request"
  | "not_found"
  | "too_large"
  | "timeout"
  | "method_not_allowed"
  | "error";

const BY_STATUS: Record<number, ReceiverOutcome> = {
  200: "accepted",
  400: "bad_request",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  408: "timeout",
  409: "in_progress",
  413: "too_large",
};

/** The outcome of an answer: its status, and whether a 200 was a duplicate's. */
export function receiverOutcome(status: number, duplicate: boolean | undefined): ReceiverOutcome {
  if (status === 200 && duplicate) return "duplicate";
  return BY_STATUS[status] ?? "error";
}

const OUTCOMES: ReceiverOutcome[] = [
  "accepted",
  "duplicate",
  "in_progress",
  "unauthorized",
  "bad_request",
  "not_found",
  "too_large",
  "timeout",
  "method_not_allowed",
  "error",
];

const ATTRIBUTES = outcomeAttributes(OUTCOMES);

/** A request's telemetry while it is handled: its `webhooks.receive` span (none without a tracer). */
export type ReceiveTelemetry = SpanTelemetry;

/** What a request's report knows when it is answered. */
export interface ReceiveDetails {
  duplicate?: boolean;
  /** Items in the body (stored or handed on when accepted). */
  itemCount?: number;
  /** The tenant the header named. */
  tenantId?: string;
}

/**
 * Starts a request's telemetry: `undefined` when telemetry is off (then the
 * receiver does nothing more for it), else its span, started at `started`
 * (a `performance.now()` reading), a child of the active context (Deno's
 * server span inside a `Deno.serve` handler).
 */
export function receiveStarted(started: number = performance.now()): ReceiveTelemetry | undefined {
  if (telemetryOff()) return undefined;
  const tracer = otel().tracer;
  if (tracer === null) return UNTRACED;
  const parent = context.active();
  const span = tracer.startSpan("webhooks.receive", { startTime: spanTime(started) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` with the request's span active, so that the commit's span and the consumer's own are its children. */
export const inReceive: typeof inSpan = inSpan;

/**
 * Records a request's answer: its outcome, duration (from `started`,
 * performance.now ms) and items; ends its span. Nothing with telemetry off.
 */
export function receiveEnded(
  t: ReceiveTelemetry | undefined,
  status: number,
  started: number,
  details: ReceiveDetails,
): void {
  if (t === undefined) return;
  const ended = performance.now();
  const outcome = receiverOutcome(status, details.duplicate);
  const attributes = ATTRIBUTES[outcome];
  const items = outcome === "accepted" ? details.itemCount ?? 0 : 0;
  measure(METRIC["webhooks.receiver.requests"], 1, attributes);
  measure(METRIC["webhooks.receiver.duration"], (ended - started) / 1000, attributes);
  if (items > 0) measure(METRIC["webhooks.receiver.items"], items);
  const span = t.span;
  if (span === undefined) return;
  // One call for the three: each setAttribute is a call into Deno's Rust side.
  span.setAttributes(
    details.tenantId === undefined ? { "webhooks.outcome": outcome, "webhooks.items": intAttribute(items) } : {
      "webhooks.outcome": outcome,
      "webhooks.items": intAttribute(items),
      "webhooks.tenant_id": boundedTenant(details.tenantId),
    },
  );
  if (outcome === "error") span.setStatus({ code: SpanStatusCode.ERROR });
  endLater(span, ended);
}

/** The longest `webhooks.tenant_id` exported, in UTF-16 code units (as the receiver's onAttempt cuts a header's value). */
export const MAX_TENANT_ATTRIBUTE = 512;

/**
 * The tenant id as an attribute: the header's value is the caller's, read
 * before anything is verified (a 401's span has it too), so one longer than
 * {@linkcode MAX_TENANT_ATTRIBUTE} is cut to it, ending in `...` (a
 * surrogate pair never split): a header of 8 KiB writes no 8 KiB into each span.
 */
export function boundedTenant(tenantId: string): string {
  if (tenantId.length <= MAX_TENANT_ATTRIBUTE) return tenantId;
  let end = MAX_TENANT_ATTRIBUTE - 3;
  const last = tenantId.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose pair would be cut off
  return `${tenantId.slice(0, end)}...`;
}

/** Starts the span of the commit that stores a postback, under the active (the request's) span. */
export function commitStarted(): Span | undefined {
  return otel().tracer?.startSpan("webhooks.commit", { startTime: spanTime(performance.now()) });
}

/** Ends a commit's span: how many postbacks shared the commit (when it was made), and whether it stored this one. */
export function commitEnded(span: Span | undefined, postbacks: number | undefined, ok: boolean): void {
  if (span === undefined) return;
  if (postbacks !== undefined) span.setAttribute("webhooks.commit.postbacks", postbacks);
  if (!ok) span.setStatus({ code: SpanStatusCode.ERROR });
  endLater(span, performance.now());
}

/** Records one commit of the group commit: how many postbacks it stored. */
export function groupCommitted(postbacks: number): void {
  if (telemetryOff()) return;
  measure(METRIC["webhooks.commit.postbacks"], postbacks);
}
