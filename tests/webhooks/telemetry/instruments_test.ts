/**
 * The package makes its instruments once, from OpenTelemetry's global
 * meter, and records every request through them: never an instrument per
 * request, nor again after a reset while the provider is the same. A meter
 * provider of this test (the API's own no-op meter, counting) is registered
 * through `@opentelemetry/api`, as a program with an SDK would.
 */

import assert from "node:assert/strict";
import { createNoopMeter, type Meter, metrics } from "@opentelemetry/api";
import { resetTelemetry } from "../../../webhooks/telemetry/mod.ts";
import { receiving } from "./_helpers.ts";

Deno.test("instruments are made once from the global meter and every request is recorded through them", async () => {
  const made: string[] = [];
  const recorded: string[] = [];
  const noop = createNoopMeter();
  const meter: Meter = Object.create(noop);
  meter.createCounter = (name) => {
    made.push(name);
    return { add: (value, attributes) => void recorded.push(`${name} ${value} ${JSON.stringify(attributes ?? {})}`) };
  };
  meter.createHistogram = (name) => {
    made.push(name);
    return { record: () => void recorded.push(name) };
  };
  assert.ok(metrics.setGlobalMeterProvider({ getMeter: () => meter }));
  resetTelemetry();
  const kv = await Deno.openKv(":memory:");
  try {
    const post = await receiving(kv);
    assert.deepEqual([await post(false), await post(false)], [401, 401]);
    assert.equal(await post(true), 200);
    resetTelemetry(); // looked up again: the same provider, so the same instruments
    assert.equal(await post(false), 401);

    assert.deepEqual(made, [
      "webhooks.receiver.requests",
      "webhooks.receiver.duration",
      "webhooks.receiver.items",
      "webhooks.commit.postbacks",
      "webhooks.platform.requests",
      "webhooks.platform.duration",
      "webhooks.relay.attempts",
      "webhooks.relay.duration",
    ]);
    assert.deepEqual(recorded.filter((r) => r.startsWith("webhooks.receiver.requests")), [
      'webhooks.receiver.requests 1 {"webhooks.outcome":"unauthorized"}',
      'webhooks.receiver.requests 1 {"webhooks.outcome":"unauthorized"}',
      'webhooks.receiver.requests 1 {"webhooks.outcome":"accepted"}',
      'webhooks.receiver.requests 1 {"webhooks.outcome":"unauthorized"}',
    ]);
    assert.equal(recorded.filter((r) => r === "webhooks.receiver.duration").length, 4);
    assert.deepEqual(recorded.filter((r) => r.startsWith("webhooks.receiver.items")), ["webhooks.receiver.items 1 {}"]);
    assert.equal(recorded.filter((r) => r === "webhooks.commit.postbacks").length, 1);
  } finally {
    kv.close();
    metrics.disable();
    resetTelemetry();
  }
});
