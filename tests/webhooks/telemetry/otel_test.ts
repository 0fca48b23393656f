/**
 * The package's telemetry with Deno's OpenTelemetry on (`OTEL_DENO=true`):
 * a child process exports to an OTLP/HTTP receiver in this test, which
 * reads API.md's metrics and spans out of what arrived.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

Deno.test("with OTEL_DENO=true the receiver's and the platform's spans nest and their metrics export", async () => {
  const otlp = startOtlpReceiver();
  try {
    await runChild("_otel_child.ts", otlp.env(200));
    await otlp.waitFor(() => otlp.spans().some((s) => s.name === "webhooks.unregister"), "the unregister span");
    await otlp.waitFor(() => otlp.metrics().has("webhooks.platform.requests"), "the platform's metrics");

    const spans = otlp.spans();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const receives = spans.filter((s) => s.name === "webhooks.receive");
    assert.equal(receives.length, 4);
    for (const span of receives) {
      assert.equal(span.scope, "@community-webhooks/sdk");
      const parent = byId.get(span.parentSpanId);
      assert.ok(parent, "a receive span has a parent");
      assert.equal(parent.kind, 2, "the parent is Deno's server span");
      assert.equal(span.attributes["webhooks.tenant_id"], "tenant-7");
    }
    assert.deepEqual(receives.map((s) => s.attributes["webhooks.outcome"]).sort(), [
      "accepted",
      "accepted",
      "duplicate",
      "unauthorized",
    ]);
    assert.deepEqual(receives.map((s) => s.attributes["webhooks.items"]).sort(), [0, 0, 1, 1]);
    const commits = spans.filter((s) => s.name === "webhooks.commit");
    assert.equal(commits.length, 3);
    for (const commit of commits) {
      assert.equal(byId.get(commit.parentSpanId)?.name, "webhooks.receive");
      assert.equal(commit.attributes["webhooks.commit.postbacks"], 2);
    }
    // Ended in batches, each still carries its own times: inside its parent's (Deno's clock), within a ms.
    for (const span of [...receives, ...commits]) {
      const parent = byId.get(span.parentSpanId)!;
      const times = `${span.name} ${span.startMs}-${span.endMs} in ${parent.name} ${parent.startMs}-${parent.endMs}`;
      assert.ok(span.startMs <= span.endMs, times);
      assert.ok(parent.startMs - 1 <= span.startMs && span.endMs <= parent.endMs + 1, times);
    }

    const register = spans.find((s) => s.name === "webhooks.register")!;
    assert.deepEqual(register.attributes, { "webhooks.community": "Acme", "webhooks.outcome": "ok" });
    const renew = spans.find((s) => s.name === "webhooks.renew")!;
    assert.equal(renew.parentSpanId, register.spanId);
    const fetches = spans.filter((s) => s.kind === 3);
    assert.deepEqual(
      fetches.filter((s) => String(s.attributes["url.full"]).includes("/api/core")).map((s) =>
        byId.get(s.parentSpanId)?.name
      )
        .sort(),
      ["webhooks.register", "webhooks.renew"],
    );
    const unregister = spans.find((s) => s.name === "webhooks.unregister")!;
    assert.equal(unregister.attributes["webhooks.outcome"], "error");
    assert.equal(unregister.status, 2);

    const metrics = otlp.metrics();
    const requests = metrics.get("webhooks.receiver.requests")!;
    assert.equal(requests.scope, "@community-webhooks/sdk");
    assert.equal(requests.unit, "{request}");
    assert.equal(requests.temporality, 2);
    assert.deepEqual(
      Object.fromEntries(requests.points.map((p) => [p.attributes["webhooks.outcome"], p.value])),
      { accepted: 2, duplicate: 1, unauthorized: 1 }, // not the 404 sent while resetTelemetry(true) held
    );
    const duration = metrics.get("webhooks.receiver.duration")!;
    assert.equal(duration.unit, "s");
    assert.equal(duration.points.reduce((n, p) => n + p.count!, 0), 4);
    assert.deepEqual(duration.points[0].explicitBounds?.slice(0, 3), [0.001, 0.0025, 0.005]);
    assert.deepEqual(metrics.get("webhooks.receiver.items")!.points.map((p) => p.value), [2]);
    const commitSizes = metrics.get("webhooks.commit.postbacks")!.points[0];
    assert.deepEqual([commitSizes.count, commitSizes.sum], [3, 6]);
    assert.deepEqual(
      metrics.get("webhooks.platform.requests")!.points.map((p) =>
        `${p.attributes["webhooks.operation"]} ${p.attributes["webhooks.outcome"]} ${p.value}`
      ).sort(),
      ["register ok 1", "renew ok 1", "unregister error 1"],
    );
    assert.equal(metrics.get("webhooks.platform.duration")!.unit, "s");
  } finally {
    await otlp.close();
  }
});
