/**
 * The console as a process with Deno's OpenTelemetry on (`OTEL_DENO=true`,
 * `http/json`) exporting to an OTLP/HTTP receiver in this test: accepted,
 * duplicate, unsigned and unknown-hook postbacks arrive as API.md's metric
 * data points and spans, the receiver's spans under Deno's server span; no
 * exported byte holds the client secret, the metrics token or the
 * signature; and `/metrics` counts the same, read with a Prometheus text
 * parser.
 */

import assert from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import { createWebhooks, signJiveExtn } from "../../webhooks/mod.ts";
import { startOtlpReceiver } from "../otlp_receiver.ts";
import { startConsoleProcess } from "./_main_process.ts";

const SECRET = btoa(`client secret ${crypto.randomUUID()}`);
const TOKEN = `metrics-${crypto.randomUUID()}`;
const COMMUNITY = { name: "Acme", tenantId: "tenant-acme", baseUrl: "https://acme.example", clientId: "client-acme" };
const REF = "https://acme.example/api/core/v3/webhooks/41";
const UNKNOWN_REF = "https://acme.example/api/core/v3/webhooks/99";

Deno.test("the console with OTEL_DENO=true exports API.md's metrics and spans for each outcome, and no secret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "console_otel_" });
  const kvPath = `${dir}/console.kv`;
  const kv = await Deno.openKv(kvPath);
  const hooks = createWebhooks(kv);
  await hooks.communities.save({ ...COMMUNITY, clientSecret: SECRET });
  await hooks.save({ id: "hook-41", tenantId: COMMUNITY.tenantId, entity: { resources: { self: { ref: REF } } } });
  kv.close();

  const otlp = startOtlpReceiver();
  const console_ = await startConsoleProcess({
    HOST: "127.0.0.1",
    ...otlp.env(200),
    KV_PATH: kvPath,
    METRICS_TOKEN: TOKEN,
  });
  const signatures: string[] = [];
  try {
    const post = async (items: { webhook: string }[], authorization?: string) => {
      const res = await fetch(`${console_.origin}/hooks/hook-41`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: JSON.stringify(items.map(({ webhook }) => ({ webhook, activity: { verb: "jive:created" } }))),
      });
      return [res.status, await res.json()];
    };
    const sign = async () => {
      const header = await signJiveExtn({ ...COMMUNITY, jiveUrl: COMMUNITY.baseUrl }, SECRET);
      signatures.push(/signature=([^&\s]+)/.exec(header)![1], header);
      return header;
    };
    const accepted = await sign();
    assert.deepEqual(await post([{ webhook: REF }], accepted), [200, { received: 1 }]);
    assert.deepEqual(await post([{ webhook: REF }], accepted), [200, { received: 0, duplicate: true }]);
    assert.equal((await post([{ webhook: REF }]))[0], 401);
    assert.equal((await post([{ webhook: UNKNOWN_REF }], await sign()))[0], 404);

    // The metric data points: cumulative sums by outcome, the histogram's counts, the items.
    const outcomes = () =>
      Object.fromEntries(
        (otlp.metrics().get("webhooks.receiver.requests")?.points ?? []).map((p) => [
          p.attributes["webhooks.outcome"],
          p.value,
        ]),
      );
    const expected = { accepted: 1, duplicate: 1, unauthorized: 1, not_found: 1 };
    const sorted = (o: Record<string, unknown>) => JSON.stringify(Object.entries(o).sort());
    await otlp.waitFor(() => sorted(outcomes()) === sorted(expected), `the four outcomes (${sorted(outcomes())})`)
      .catch(() => assert.deepEqual(outcomes(), expected));
    const metrics = otlp.metrics();
    const requests = metrics.get("webhooks.receiver.requests")!;
    assert.equal(requests.scope, "@community-webhooks/sdk");
    assert.equal(requests.unit, "{request}");
    assert.equal(requests.temporality, 2);
    assert.equal(requests.monotonic, true);
    const duration = metrics.get("webhooks.receiver.duration")!;
    assert.equal(duration.unit, "s");
    assert.deepEqual(
      Object.fromEntries(duration.points.map((p) => [p.attributes["webhooks.outcome"], p.count])),
      expected,
    );
    assert.ok(duration.points.every((p) => p.sum! > 0 && p.sum! < 10), "seconds");
    assert.deepEqual(metrics.get("webhooks.receiver.items")?.points.map((p) => p.value), [1]);
    const commits = metrics.get("webhooks.commit.postbacks")!.points;
    assert.equal(commits.reduce((n, p) => n + p.sum!, 0), 1, "one postback committed");

    // The spans: one webhooks.receive per request under Deno's server span, the commit under the accepted one.
    await otlp.waitFor(() => otlp.spans().filter((s) => s.name === "webhooks.receive").length >= 4, "four spans");
    const spans = otlp.spans();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const receives = spans.filter((s) => s.name === "webhooks.receive");
    assert.deepEqual(receives.map((s) => s.attributes["webhooks.outcome"]).sort(), Object.keys(expected).sort());
    for (const span of receives) {
      const server = byId.get(span.parentSpanId);
      assert.ok(server, `the parent of ${span.attributes["webhooks.outcome"]}`);
      assert.equal(server.kind, 2, "Deno's server span");
      assert.equal(server.traceId, span.traceId);
    }
    const bySpan = Object.fromEntries(receives.map((s) => [s.attributes["webhooks.outcome"], s]));
    assert.equal(bySpan.accepted.attributes["webhooks.items"], 1);
    assert.equal(bySpan.accepted.attributes["webhooks.tenant_id"], COMMUNITY.tenantId);
    assert.equal(bySpan.unauthorized.attributes["webhooks.tenant_id"], undefined, "no header, no tenant");
    const commit = spans.filter((s) => s.name === "webhooks.commit");
    assert.equal(commit.length, 1);
    assert.equal(commit[0].parentSpanId, bySpan.accepted.spanId);
    assert.equal(commit[0].attributes["webhooks.commit.postbacks"], 1);

    // /metrics counts the same, read by a Prometheus text parser; 401 without the token.
    const unauthorized = await fetch(`${console_.origin}/metrics`);
    await unauthorized.body?.cancel();
    assert.equal(unauthorized.status, 401);
    const scraped = await fetch(`${console_.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(scraped.status, 200);
    const families: { name: string; metrics: { value?: string; labels?: Record<string, string> }[] }[] =
      parsePrometheus(await scraped.text());
    const family = families.find((f) => f.name === "webhooks_receiver_requests_total")!;
    assert.deepEqual(
      Object.fromEntries(family.metrics.map((m) => [m.labels!.webhooks_outcome, Number(m.value)])),
      expected,
    );

    // Nothing exported holds a secret: the client secret, the metrics token, a signature or a whole header.
    const exported = otlp.text();
    assert.ok(exported.length > 1000, "something was exported");
    for (const secret of [SECRET, TOKEN, ...signatures]) {
      assert.ok(!exported.includes(secret), `an export holds ${secret.slice(0, 12)}...`);
    }
  } finally {
    await console_.stop();
    await otlp.close();
    await Deno.remove(dir, { recursive: true });
  }
});
