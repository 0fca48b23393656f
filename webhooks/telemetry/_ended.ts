// The receiver's spans end in batches: a span's end time is taken when the
// request is answered, and the span goes to Deno's exporter with that time a
// little later, with the others that ended meanwhile.
//
// Deno's batch span processor runs on a thread of its own: a span handed to
// it while that thread sleeps wakes it (an eventfd write on this side, a
// thread switch on the other), which on a small machine costs more CPU than
// the span does. One at a time, each of a postback's two spans paid for a
// wake; handed over back to back, spans find the thread awake far more
// often (docs/observability-cost.md, "What it costs"). What is exported is the same:
// the same spans, with the same start and end times, parents and attributes.

import type { Span } from "@opentelemetry/api";
import { telemetryOff } from "./_record.ts";

/** How long an ended span waits at most before it goes to the exporter (Deno's processor then waits up to 5 s). */
export const DELAY_MS = 100;
/**
 * Spans handed over at once: never more than this many wait. The more back
 * to back, the less often the exporter thread sleeps between them (measured:
 * 256 cost less than 64); handing them over takes the event loop about
 * 1-6 µs a span, so at most about 1.5 ms at a time. Well under the
 * processor's queue (2,048 by default), so none is dropped.
 */
const BATCH = 256;

/** Spans and their end times (epoch ms), in pairs. */
let pending: (Span | number)[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
let unloading = false;

/**
 * `performance.now()`'s origin on the wall clock, as Deno's own spans read
 * it: the package's span times are `performance.now()` readings (µs, where
 * `Date.now()` has ms), moved to the wall clock; set again when the wall
 * clock was stepped.
 */
let origin = performance.timeOrigin;

/** A `performance.now()` reading as a span time: epoch ms. */
export function spanTime(at: number): number {
  return origin + at;
}

/** Ends `span` at `at` (a `performance.now()` reading); it reaches the exporter within {@linkcode DELAY_MS}. */
export function endLater(span: Span, at: number): void {
  pending.push(span, origin + at);
  if (pending.length >= 2 * BATCH) return flushEnded();
  if (timer === undefined) {
    const due = setTimeout(flushDue, DELAY_MS);
    timer = due;
    Deno.unrefTimer(due); // a waiting span never keeps the process alive: unload hands it over
  }
  if (!unloading) {
    unloading = true;
    // Deno exports what its processor holds when the process ends, after unload (Deno.exit() too).
    globalThis.addEventListener("unload", flushEnded);
  }
}

/**
 * The timer's flush. While telemetry is taken as off (`resetTelemetry(true)`:
 * the bench's "off" rows in the same process), the spans ended before wait
 * for the next span or unload, so that "on" pays for its own spans.
 */
function flushDue(): void {
  timer = undefined;
  if (!telemetryOff()) flushEnded();
}

/** Hands every waiting span to the exporter now. */
export function flushEnded(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  const ended = pending;
  pending = [];
  for (let i = 0; i < ended.length; i += 2) (ended[i] as Span).end(ended[i + 1] as number);
  checkOrigin();
}

/**
 * Sets {@linkcode origin} again when the wall clock was stepped since.
 * `Date.now()` floors to the ms, so it reads within (-1, 0] ms of the
 * monotonic time (less when the thread is paused between the two readings:
 * the largest of three is taken).
 */
function checkOrigin(): void {
  let drift = -Infinity;
  for (let i = 0; i < 3; i++) drift = Math.max(drift, Date.now() - (origin + performance.now()));
  if (drift > 0.5 || drift < -1.5) origin += drift + 0.5;
}
