/**
 * The receiver's spans end in batches (webhooks/telemetry/_ended.ts): each
 * carries the times of its own request, taken when it started and was
 * answered, and reaches the tracer at most 100 ms later. A tracer provider of
 * this test, recording what it is given, is registered through
 * `@opentelemetry/api`, as a program with an SDK would.
 */

import assert from "node:assert/strict";
import { type Span, type SpanOptions, trace, type Tracer } from "@opentelemetry/api";
import { flushEnded, HANDOVER_DELAY_MS, resetTelemetry } from "../../../webhooks/telemetry/mod.ts";
import { receiving } from "./_helpers.ts";

interface Recorded {
  name: string;
  start: number;
  end?: number;
  attributes: Record<string, unknown>;
}

/** Registers a tracer that records every span; the spans it made, in order. */
function recordingTracer(): Recorded[] {
  const spans: Recorded[] = [];
  const tracer = {
    startSpan(name: string, options?: SpanOptions): Span {
      const span: Recorded = { name, start: Number(options?.startTime), attributes: {} };
      spans.push(span);
      const api = {
        spanContext: () => ({ traceId: "0".repeat(31) + "1", spanId: "0".repeat(15) + "1", traceFlags: 1 }),
        setAttribute: (key: string, value: unknown) => (span.attributes[key] = value, api),
        setAttributes: (attributes: Record<string, unknown>) => (Object.assign(span.attributes, attributes), api),
        setStatus: () => api,
        isRecording: () => true,
        end: (at?: number) => {
          assert.equal(span.end, undefined, `${name} ended twice`);
          span.end = at;
        },
      };
      return api as unknown as Span;
    },
  } as unknown as Tracer;
  assert.ok(trace.setGlobalTracerProvider({ getTracer: () => tracer }));
  resetTelemetry();
  return spans;
}

const wallNow = () => performance.timeOrigin + performance.now();
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("the receiver's spans carry their request's times and reach the tracer within 100 ms of the answer", async () => {
  const spans = recordingTracer();
  const kv = await Deno.openKv(":memory:");
  try {
    const post = await receiving(kv);
    const before = wallNow();
    assert.equal(await post(true), 200);
    const answered = wallNow();
    assert.equal(await post(false), 401);
    assert.deepEqual(spans.map((s) => [s.name, s.end]), [
      ["webhooks.receive", undefined],
      ["webhooks.commit", undefined],
      ["webhooks.receive", undefined],
    ]);
    // However slow the machine: every span went to endLater() before post() returned, so the timer that hands
    // them over was set before this one and is due at least 100 ms earlier; due timers run in deadline order, so it
    // has run by the time this one does (waiting on the delay itself: a longer hand-over still fails the test).
    assert.equal(HANDOVER_DELAY_MS, 100, "the hand-over delay that API users are told (docs/observability.md)");
    await delay(HANDOVER_DELAY_MS + 100);
    const [receive, commit, unauthorized] = spans;
    assert.deepEqual(receive.attributes, {
      "webhooks.outcome": "accepted",
      "webhooks.items": 1,
      "webhooks.tenant_id": "t",
    });
    assert.deepEqual(commit.attributes, { "webhooks.commit.postbacks": 1 });
    assert.deepEqual(unauthorized.attributes, { "webhooks.outcome": "unauthorized", "webhooks.items": 0 });
    // Its own times, in epoch ms: not those of the batch it was handed over in.
    assert.ok(before <= receive.start, `${before} <= ${receive.start}`);
    assert.ok(receive.start <= commit.start && commit.start <= commit.end! && commit.end! <= receive.end!);
    assert.ok(receive.end! <= answered, `${receive.end} <= ${answered}`);
    assert.ok(answered <= unauthorized.start && unauthorized.start <= unauthorized.end!);
    assert.ok(Math.abs(receive.start - Date.now()) < 60_000, "wall-clock time");
  } finally {
    kv.close();
    trace.disable();
    resetTelemetry();
  }
});

Deno.test("spans ended before telemetry is taken as off wait until flushEnded() hands them over", async () => {
  const spans = recordingTracer();
  const kv = await Deno.openKv(":memory:");
  try {
    const post = await receiving(kv);
    assert.equal(await post(false), 401);
    const answered = wallNow();
    resetTelemetry(true); // as the bench's "off" rows: the "on" rows' spans wait for their own
    // The hand-over timer, due at least 100 ms earlier, has run (and kept them) by then: waiting on the delay
    // itself, so that a longer hand-over cannot make this check pass before its timer ran.
    await delay(HANDOVER_DELAY_MS + 100);
    assert.equal(spans[0].end, undefined);
    flushEnded();
    assert.ok(spans[0].end! <= answered && spans[0].end! >= spans[0].start);
  } finally {
    kv.close();
    trace.disable();
    resetTelemetry();
  }
});
