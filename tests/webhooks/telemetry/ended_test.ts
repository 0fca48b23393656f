/**
 * The receiver's spans end in batches (webhooks/telemetry/_ended.ts): each
 * carries the times of its own request, taken when it started and was
 * answered, and reaches the tracer at most 100 ms later. A tracer provider of
 * this test, recording what it is given, is registered through
 * `@opentelemetry/api`, as a program with an SDK would.
 */

import assert from "node:assert/strict";
import { type Span, type SpanOptions, trace, type Tracer } from "@opentelemetry/api";
import { createReceiver, createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { flushEnded, resetTelemetry } from "../../../webhooks/telemetry/mod.ts";

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

/** A receiver over a fresh KV with one community and hook, and a function that posts one item to it. */
async function receiving(kv: Deno.Kv): Promise<(signed: boolean) => Promise<number>> {
  const hooks = createWebhooks(kv);
  const secret = btoa("ended test secret");
  await hooks.communities.save({
    name: "A",
    tenantId: "t",
    baseUrl: "https://a.example",
    clientId: "c",
    clientSecret: secret,
  });
  const ref = "https://a.example/api/core/v3/webhooks/1";
  await hooks.save({ id: "h", tenantId: "t", entity: { resources: { self: { ref } } } });
  const receiver = createReceiver(hooks, {
    write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], 1),
  });
  return async (signed) => {
    const authorization = signed
      ? await signJiveExtn({ clientId: "c", jiveUrl: "https://a.example", tenantId: "t" }, secret)
      : undefined;
    const res = await receiver.handle(
      new Request("http://localhost/hooks", {
        method: "POST",
        headers: authorization ? { authorization } : {},
        body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]),
      }),
    );
    await res.body?.cancel();
    return res.status;
  };
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
    await delay(200);
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
    await delay(200);
    assert.equal(spans[0].end, undefined);
    flushEnded();
    assert.ok(spans[0].end! <= answered && spans[0].end! >= spans[0].start);
  } finally {
    kv.close();
    trace.disable();
    resetTelemetry();
  }
});
