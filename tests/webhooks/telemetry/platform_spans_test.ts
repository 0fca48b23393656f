/**
 * The platform operations with Deno's OpenTelemetry on: a child process
 * registers (meeting a 401, so renewing), updates, reconciles, unregisters
 * and fails an update against a real platform on 127.0.0.1, exporting to an
 * OTLP/HTTP receiver in this test. Each operation is a span with the
 * community's name and its outcome, Deno's fetch spans are its children
 * (the renewal's under its own span, under register's), the calls count by
 * operation and outcome, and no token or secret is exported.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { communityOf, startPlatform } from "../platform.ts";
import { runChild } from "./_helpers.ts";

Deno.test("with OTEL_DENO=true each platform operation is a span over its fetch spans, counted by outcome", async () => {
  const clientSecret = `platform-secret-${crypto.randomUUID()}`;
  const refreshToken = `refresh-${crypto.randomUUID()}`;
  const platform = await startPlatform({ clientSecret, refreshTokens: [refreshToken] });
  const otlp = startOtlpReceiver();
  const expired = `expired-${crypto.randomUUID()}`;
  try {
    const community = communityOf(platform, {
      clientSecret,
      oauth: { access_token: expired, refresh_token: refreshToken },
    });
    await runChild("_platform_child.ts", { ...otlp.env(200), TEST_COMMUNITY: JSON.stringify(community) });
    const count = () =>
      (otlp.metrics().get("webhooks.platform.requests")?.points ?? []).map((p) =>
        `${p.attributes["webhooks.operation"]} ${p.attributes["webhooks.outcome"]} ${p.value}`
      ).sort();
    const expected = [
      "list ok 1",
      "reconcile ok 1",
      "register ok 1",
      "renew ok 1",
      "unregister ok 1",
      "update error 1",
      "update ok 1",
    ];
    await otlp.waitFor(() => JSON.stringify(count()) === JSON.stringify(expected), "the calls' counts")
      .catch(() => assert.deepEqual(count(), expected));
    await otlp.waitFor(() => otlp.spans().filter((s) => s.name === "webhooks.update").length === 2, "the spans");
    // The duration histogram: in seconds, one measurement per call, by the same operation and outcome.
    const duration = otlp.metrics().get("webhooks.platform.duration")!;
    assert.deepEqual([duration.scope, duration.kind, duration.unit], ["@community-webhooks/sdk", "histogram", "s"]);
    assert.deepEqual(
      duration.points.map((p) => `${p.attributes["webhooks.operation"]} ${p.attributes["webhooks.outcome"]} ${p.count}`)
        .sort(),
      expected,
    );
    const requests = otlp.metrics().get("webhooks.platform.requests")!;
    assert.deepEqual([requests.kind, requests.unit, requests.monotonic], ["sum", "{request}", true]);

    const spans = otlp.spans();
    const childrenOf = (span: { spanId: string }) =>
      spans.filter((s) => s.parentSpanId === span.spanId).map((s) =>
        `${s.name} ${new URL(String(s.attributes["url.full"] ?? "http://x/")).pathname}`
      ).sort();
    const named = (name: string) => spans.filter((s) => s.name === name);
    for (
      const name of [
        "webhooks.register",
        "webhooks.update",
        "webhooks.reconcile",
        "webhooks.unregister",
        "webhooks.renew",
      ]
    ) {
      for (const span of named(name)) {
        assert.equal(span.scope, "@community-webhooks/sdk");
        assert.equal(span.attributes["webhooks.community"], "Acme", name);
      }
    }
    const [register] = named("webhooks.register");
    assert.equal(register.attributes["webhooks.outcome"], "ok");
    const [renew] = named("webhooks.renew");
    assert.equal(renew.parentSpanId, register.spanId, "the renewal runs under the call that met the 401");
    const base = new URL(platform.url).pathname;
    assert.deepEqual(childrenOf(renew), [`POST ${base}/oauth2/token`]);
    const apiPath = `${base}/api/core/v3/webhooks`;
    assert.deepEqual(childrenOf(register), [`POST ${apiPath}`, `POST ${apiPath}`, "webhooks.renew /"].sort());
    const [update, failed] = named("webhooks.update");
    assert.equal(update.attributes["webhooks.outcome"], "ok");
    assert.equal(failed.attributes["webhooks.outcome"], "error");
    assert.equal(failed.status, 2);
    assert.ok(childrenOf(update)[0].startsWith(`PUT ${apiPath}/`));
    assert.deepEqual(childrenOf(named("webhooks.reconcile")[0]), [`GET ${apiPath}`]);
    assert.ok(childrenOf(named("webhooks.unregister")[0])[0].startsWith(`DELETE ${apiPath}/`));

    const exported = otlp.text();
    const basic = btoa(`client-1:${clientSecret}`);
    const secrets = [
      clientSecret,
      refreshToken,
      expired,
      basic,
      ...platform.issued.flatMap((t) => [t.access_token, t.refresh_token]),
    ];
    assert.equal(secrets.length, 6, "the renewal issued a pair");
    for (const secret of secrets) assert.ok(!exported.includes(secret), `an export holds ${secret.slice(0, 10)}...`);
  } finally {
    await otlp.close();
    await platform.close();
  }
});
