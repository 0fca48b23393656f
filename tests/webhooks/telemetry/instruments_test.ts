/**
 * The package makes its instruments once, from OpenTelemetry's global
 * meter, and records every request through them: never an instrument per
 * request, nor again after a reset while the provider is the same. A meter
 * provider of this test (the API's own no-op meter, counting) is registered
 * through `@opentelemetry/api`, as a program with an SDK would.
 */

import assert from "node:assert/strict";
import { createNoopMeter, type Meter, metrics } from "@opentelemetry/api";
import { createReceiver, createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { resetTelemetry } from "../../../webhooks/telemetry/mod.ts";

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
    const hooks = createWebhooks(kv);
    const secret = btoa("instruments test secret");
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
    const post = async (authorization?: string) => {
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
    assert.deepEqual([await post(), await post()], [401, 401]);
    assert.equal(
      await post(await signJiveExtn({ clientId: "c", jiveUrl: "https://a.example", tenantId: "t" }, secret)),
      200,
    );
    resetTelemetry(); // looked up again: the same provider, so the same instruments
    assert.equal(await post(), 401);

    assert.deepEqual(made, [
      "webhooks.receiver.requests",
      "webhooks.receiver.duration",
      "webhooks.receiver.items",
      "webhooks.commit.postbacks",
      "webhooks.platform.requests",
      "webhooks.platform.duration",
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
