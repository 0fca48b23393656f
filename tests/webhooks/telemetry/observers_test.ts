/**
 * The package's telemetry in a process without OpenTelemetry (no
 * `OTEL_DENO`): off, it does nothing for a request; with an observer of
 * `observeMetrics`, every measurement reaches it with API.md's names and
 * attributes.
 */

import assert from "node:assert/strict";
import {
  type MetricAttributes,
  type MetricName,
  observeMetrics,
  platformOperation,
  receiveEnded,
  receiveStarted,
  telemetryOff,
  WEBHOOKS_METRICS,
} from "../../../webhooks/telemetry/mod.ts";

type Seen = [MetricName, number, MetricAttributes];

function observing(): { seen: Seen[]; stop(): void } {
  const seen: Seen[] = [];
  const stop = observeMetrics((name, value, attributes) => void seen.push([name, value, attributes]));
  return { seen, stop };
}

Deno.test("with telemetry off a request gets no telemetry and an operation runs as it is", async () => {
  assert.equal(Deno.env.get("OTEL_DENO"), undefined, "this test runs without OTEL_DENO");
  assert.equal(telemetryOff(), true);
  assert.equal(receiveStarted(), undefined);
  const promise = Promise.resolve("answer");
  // Not wrapped: the very promise the operation returned.
  assert.equal(platformOperation("register", () => promise), promise);
  assert.equal(await promise, "answer");
});

Deno.test("an observer gets each request's outcome, its duration in seconds and the items accepted", () => {
  const { seen, stop } = observing();
  try {
    assert.equal(telemetryOff(), false);
    const t = receiveStarted();
    assert.ok(t, "telemetry is on while an observer listens");
    assert.equal(t.span, undefined, "no tracer: no span");
    const started = performance.now() - 25;
    receiveEnded(t, 200, started, { itemCount: 3, tenantId: "t1" });
    receiveEnded(t, 200, started, { duplicate: true, itemCount: 3 });
    for (const status of [409, 401, 400, 404, 413, 408, 405, 500, 502]) receiveEnded(t, status, started, {});
    const outcomes = seen.filter(([name]) => name === "webhooks.receiver.requests").map(([, v, a]) =>
      `${a["webhooks.outcome"]} ${v}`
    );
    assert.deepEqual(outcomes, [
      "accepted 1",
      "duplicate 1",
      "in_progress 1",
      "unauthorized 1",
      "bad_request 1",
      "not_found 1",
      "too_large 1",
      "timeout 1",
      "method_not_allowed 1",
      "error 1",
      "error 1",
    ]);
    const durations = seen.filter(([name]) => name === "webhooks.receiver.duration").map(([, v]) => v);
    assert.equal(durations.length, 11);
    assert.ok(durations.every((s) => s >= 0.025 && s < 5), `seconds, not ms: ${durations}`);
    // Items stored or handed on: the accepted request's three, not the duplicate's.
    assert.deepEqual(seen.filter(([name]) => name === "webhooks.receiver.items").map(([, v, a]) => [v, a]), [[3, {}]]);
    // One object per outcome, made once.
    const accepted = seen.filter(([, , a]) => a["webhooks.outcome"] === "accepted").map(([, , a]) => a);
    assert.equal(accepted[0], accepted[1]);
  } finally {
    stop();
  }
  assert.equal(telemetryOff(), true);
});

Deno.test("an observer gets each platform operation by operation and outcome, a failure as error", async () => {
  const { seen, stop } = observing();
  try {
    assert.equal(
      await platformOperation("register", (scope) => (scope.community("Acme"), Promise.resolve("ok"))),
      "ok",
    );
    await assert.rejects(
      platformOperation("unregister", () => Promise.reject(new Error("refused"))),
      /refused/,
    );
    await platformOperation("list", () => Promise.resolve([]));
    const requests = seen.filter(([name]) => name === "webhooks.platform.requests").map(([, v, a]) => [v, { ...a }]);
    assert.deepEqual(requests, [
      [1, { "webhooks.operation": "register", "webhooks.outcome": "ok" }],
      [1, { "webhooks.operation": "unregister", "webhooks.outcome": "error" }],
      [1, { "webhooks.operation": "list", "webhooks.outcome": "ok" }],
    ]);
    assert.equal(seen.filter(([name]) => name === "webhooks.platform.duration").length, 3);
  } finally {
    stop();
  }
});

Deno.test("an observer that throws changes nothing for the others, and stop() ends its calls", () => {
  const throwing = observeMetrics(() => {
    throw new Error("observer broke");
  });
  const { seen, stop } = observing();
  try {
    receiveEnded(receiveStarted()!, 401, performance.now(), {});
    assert.equal(seen.length, 2);
    stop();
    receiveEnded(receiveStarted()!, 401, performance.now(), {});
    assert.equal(seen.length, 2);
  } finally {
    stop();
    throwing();
  }
});

Deno.test("observeMetrics() refuses an observer that is not a function", () => {
  assert.throws(
    () => observeMetrics("count" as unknown as () => void),
    { name: "TypeError", message: "Cannot observe metrics: 'observer' must be a function, got string" },
  );
});

Deno.test("the metric table has API.md's names, units and attributes", () => {
  assert.deepEqual(WEBHOOKS_METRICS.map((m) => [m.name, m.kind, m.unit, m.attributes.join(",")]), [
    ["webhooks.receiver.requests", "counter", "{request}", "webhooks.outcome"],
    ["webhooks.receiver.duration", "histogram", "s", "webhooks.outcome"],
    ["webhooks.receiver.items", "counter", "{item}", ""],
    ["webhooks.commit.postbacks", "histogram", "{postback}", ""],
    ["webhooks.platform.requests", "counter", "{request}", "webhooks.operation,webhooks.outcome"],
    ["webhooks.platform.duration", "histogram", "s", "webhooks.operation,webhooks.outcome"],
    // The relay's (docs/observability.md): added after API.md's six, which keep their order.
    ["webhooks.relay.attempts", "counter", "{attempt}", "webhooks.outcome"],
    ["webhooks.relay.duration", "histogram", "s", "webhooks.outcome"],
  ]);
});
