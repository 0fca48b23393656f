/**
 * The relay with Deno's OpenTelemetry on: a child process runs a relay on a
 * KV that forwards to a test app on 127.0.0.1 answering 200, then 500 twice
 * (a retry, then a dead letter), then 410, exporting to an OTLP/HTTP
 * receiver in this test. Each attempt counts by outcome and is timed, each
 * is a `webhooks.relay.deliver` span over Deno's fetch span, and neither the
 * destination's secret, a signature nor the URL's query is in what the
 * package exports.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

const OUTCOMES = ["dead 1", "delivered 1", "failed 1", "gone 1"];

Deno.test("with OTEL_DENO=true each relay attempt is a span over its fetch span, counted and timed by outcome", async () => {
  const otlp = startOtlpReceiver();
  try {
    const out = await Deno.makeTempFile();
    await runChild("_relay_child.ts", { ...otlp.env(200), TEST_OUT: out });
    const child = JSON.parse(await Deno.readTextFile(out)) as {
      destinationId: string;
      secret: string;
      query: string;
      signatures: string[];
      entries: string[];
    };
    const count = () =>
      (otlp.metrics().get("webhooks.relay.attempts")?.points ?? []).map((p) =>
        `${p.attributes["webhooks.outcome"]} ${p.value}`
      ).sort();
    await otlp.waitFor(() => JSON.stringify(count()) === JSON.stringify(OUTCOMES), "the attempts' counts")
      .catch(() => assert.deepEqual(count(), OUTCOMES));
    const attempts = otlp.metrics().get("webhooks.relay.attempts")!;
    assert.deepEqual([attempts.scope, attempts.kind, attempts.unit, attempts.monotonic], [
      "@community-webhooks/sdk",
      "sum",
      "{attempt}",
      true,
    ]);
    for (const point of attempts.points) assert.deepEqual(Object.keys(point.attributes), ["webhooks.outcome"]);
    const duration = otlp.metrics().get("webhooks.relay.duration")!;
    assert.deepEqual([duration.kind, duration.unit], ["histogram", "s"]);
    assert.deepEqual(duration.points.map((p) => `${p.attributes["webhooks.outcome"]} ${p.count}`).sort(), OUTCOMES);
    for (const point of duration.points) assert.ok(point.sum! > 0 && point.sum! < 20, `${point.sum} s`);

    await otlp.waitFor(() => otlp.spans().filter((s) => s.name === "webhooks.relay.deliver").length === 4, "spans");
    const spans = otlp.spans();
    const delivers = spans.filter((s) => s.name === "webhooks.relay.deliver");
    assert.deepEqual(
      delivers.map((s) =>
        `${s.attributes["webhooks.outcome"]} ${s.attributes["http.response.status_code"]} ${
          s.attributes["webhooks.relay.entry"]
        }`
      ).sort(),
      [
        `dead 500 ${child.entries[1]}`,
        `delivered 200 ${child.entries[0]}`,
        `failed 500 ${child.entries[1]}`,
        `gone 410 ${child.entries[3]}`,
      ],
    );
    for (const span of delivers) {
      assert.equal(span.scope, "@community-webhooks/sdk");
      assert.equal(span.attributes["webhooks.relay.destination"], child.destinationId);
      assert.deepEqual(Object.keys(span.attributes).sort(), [
        "http.response.status_code",
        "webhooks.outcome",
        "webhooks.relay.destination",
        "webhooks.relay.entry",
      ]);
      assert.equal(span.status, span.attributes["webhooks.outcome"] === "delivered" ? 0 : 2);
      const fetches = spans.filter((s) => s.parentSpanId === span.spanId);
      assert.deepEqual(fetches.map((s) => [s.name, s.kind]), [["POST", 3]], "the attempt's fetch span is its child");
    }

    // Nothing the package exports carries the query; no exported byte carries the secret or a signature.
    const own = JSON.stringify([delivers, [...otlp.metrics().values()].filter((m) => m.name.startsWith("webhooks."))]);
    assert.ok(!own.includes(child.query), "the package's spans and metrics hold the URL's query");
    const exported = otlp.text();
    assert.equal(child.signatures.length, 4);
    for (const secret of [child.secret, child.secret.slice("whsec_".length), ...child.signatures]) {
      assert.ok(!exported.includes(secret), `an export holds ${secret.slice(0, 8)}...`);
    }
    for (const signature of child.signatures) {
      assert.ok(!exported.includes(signature.slice("v1,".length)), "an export holds a signature");
    }
    await Deno.remove(out);
  } finally {
    await otlp.close();
  }
});
