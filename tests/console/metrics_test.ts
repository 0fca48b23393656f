/**
 * The console's `GET /metrics` and `GET /readyz` (console/routes/observability.ts)
 * on a real server: the package's measurements in the Prometheus text
 * format, read back with a Prometheus text parser (npm), behind the bearer
 * token; readiness from a KV read.
 */

import assert from "node:assert/strict";
import { Hono } from "hono";
import parsePrometheus from "parse-prometheus-text-format";
import type { ConsoleEnv } from "../../console/lib/context.ts";
import { createConsoleMetrics, prometheusName } from "../../console/lib/metrics.ts";
import { type ObservabilityDeps, observabilityRoutes } from "../../console/routes/observability.ts";
import { observeMetrics, signJiveExtn, WEBHOOKS_METRICS } from "../../webhooks/mod.ts";
import { platformOperation, receiveEnded, receiveStarted } from "../../webhooks/telemetry/mod.ts";
import { startConsole } from "./_helpers.ts";

const TOKEN = "metrics-token-" + crypto.randomUUID();

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string> }[];
}

async function serve(deps: ObservabilityDeps, fn: (origin: string) => Promise<void>): Promise<void> {
  const app = new Hono<ConsoleEnv>();
  observabilityRoutes(app, deps);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

async function scrape(origin: string, token = TOKEN): Promise<Map<string, Family>> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const families: Family[] = parsePrometheus(await res.text());
  return new Map(families.map((f) => [f.name, f]));
}

function byLabel(family: Family | undefined, label: string): Record<string, number> {
  assert.ok(family, "the family is there");
  return Object.fromEntries(family.metrics.map((m) => [m.labels?.[label] ?? "", Number(m.value)]));
}

Deno.test("prometheusName() converts OpenTelemetry's names as API.md lists them", () => {
  assert.deepEqual(WEBHOOKS_METRICS.map(prometheusName), [
    "webhooks_receiver_requests_total",
    "webhooks_receiver_duration_seconds",
    "webhooks_receiver_items_total",
    "webhooks_commit_postbacks",
    "webhooks_platform_requests_total",
    "webhooks_platform_duration_seconds",
    "webhooks_relay_attempts_total",
    "webhooks_relay_duration_seconds",
  ]);
});

Deno.test("GET /metrics serves the package's measurements and the process's own in the Prometheus text format", async () => {
  const kv = await Deno.openKv(":memory:");
  const metrics = createConsoleMetrics({ metrics: WEBHOOKS_METRICS, observe: observeMetrics });
  try {
    await serve({ kv, metrics, token: TOKEN }, async (origin) => {
      const before = await scrape(origin);
      assert.deepEqual(byLabel(before.get("webhooks_receiver_requests_total"), "webhooks_outcome"), {});
      const started = performance.now();
      for (const status of [200, 200, 200, 401, 404]) {
        receiveEnded(receiveStarted()!, status, started, { itemCount: 2 });
      }
      receiveEnded(receiveStarted()!, 200, started, { itemCount: 2, duplicate: true });
      await platformOperation("register", () => Promise.resolve());
      await platformOperation("reconcile", () => Promise.reject(new Error("down"))).catch(() => {});

      const after = await scrape(origin);
      assert.equal(after.get("webhooks_receiver_requests_total")?.type, "COUNTER");
      assert.deepEqual(byLabel(after.get("webhooks_receiver_requests_total"), "webhooks_outcome"), {
        accepted: 3,
        unauthorized: 1,
        not_found: 1,
        duplicate: 1,
      });
      assert.equal(Number(after.get("webhooks_receiver_items_total")?.metrics[0].value), 6);
      const platform = after.get("webhooks_platform_requests_total")!;
      assert.deepEqual(
        platform.metrics.map((m) => `${m.labels?.webhooks_operation} ${m.labels?.webhooks_outcome} ${m.value}`).sort(),
        ["reconcile error 1", "register ok 1"],
      );
      assert.equal(after.get("webhooks_receiver_duration_seconds")?.type, "HISTOGRAM");
      assert.equal(after.get("webhooks_platform_duration_seconds")?.type, "HISTOGRAM");
      // The process's own: memory, and the event loop's lag.
      assert.ok(Number(after.get("process_resident_memory_bytes")?.metrics[0].value) > 0);
      assert.ok(after.has("nodejs_eventloop_lag_seconds"));
    });
  } finally {
    metrics.close();
    kv.close();
  }
});

Deno.test("GET /metrics answers 401 without the token or with another, naming no metric", async () => {
  const kv = await Deno.openKv(":memory:");
  const metrics = createConsoleMetrics({ metrics: WEBHOOKS_METRICS, observe: observeMetrics });
  try {
    await serve({ kv, metrics, token: TOKEN }, async (origin) => {
      const refused: Record<string, string>[] = [
        {},
        { authorization: "Bearer wrong" },
        { authorization: TOKEN },
        { authorization: `Basic ${TOKEN}` },
      ];
      for (const headers of refused) {
        const res = await fetch(`${origin}/metrics`, { headers });
        const body = await res.text();
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="metrics"');
        assert.doesNotMatch(body, /webhooks_/);
      }
    });
  } finally {
    metrics.close();
    kv.close();
  }
});

Deno.test("GET /metrics answers 404 when no METRICS_TOKEN is set", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await serve({ kv, metrics: null, token: undefined }, async (origin) => {
      const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      await res.body?.cancel();
      assert.equal(res.status, 404);
    });
  } finally {
    kv.close();
  }
});

Deno.test("GET /readyz answers 200 while the KV reads, 503 with a reason once it is closed", async () => {
  const kv = await Deno.openKv(":memory:");
  await serve({ kv, metrics: null, token: undefined }, async (origin) => {
    const ok = await fetch(`${origin}/readyz`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { ready: true });
    kv.close();
    const closed = await fetch(`${origin}/readyz`);
    assert.equal(closed.status, 503);
    assert.deepEqual(await closed.json(), { ready: false, reason: "the KV read failed" });
  });
});

Deno.test("GET /readyz answers 503 while the console starts and after its start failed", async () => {
  const kv = await Deno.openKv(":memory:");
  const starting = Promise.withResolvers<void>();
  const failing = Promise.withResolvers<void>();
  try {
    await serve({ kv, metrics: null, token: undefined, ready: starting.promise }, async (origin) => {
      const res = await fetch(`${origin}/readyz`);
      assert.equal(res.status, 503);
      assert.deepEqual(await res.json(), { ready: false, reason: "the console is starting" });
      starting.resolve();
      await starting.promise;
      assert.equal((await fetch(`${origin}/readyz`)).status, 200);
    });
    await serve({ kv, metrics: null, token: undefined, ready: failing.promise }, async (origin) => {
      failing.reject(new Error("no start"));
      await failing.promise.catch(() => {});
      const res = await fetch(`${origin}/readyz`);
      assert.deepEqual(await res.json(), { ready: false, reason: "the console could not start" });
    });
  } finally {
    kv.close();
  }
});

Deno.test("the console's /metrics counts its receiver's postbacks by outcome, as a Prometheus parser reads them", async () => {
  const t = await startConsole({ metricsToken: TOKEN });
  try {
    const secret = btoa("the metrics test's client secret");
    const community = { name: "Acme", tenantId: "tenant-m", baseUrl: "https://acme.example", clientId: "client-m" };
    await t.app.webhooks.communities.save({ ...community, clientSecret: secret });
    const ref = "https://acme.example/api/core/v3/webhooks/5";
    await t.app.webhooks.save({ id: "hook-m", tenantId: community.tenantId, entity: { resources: { self: { ref } } } });
    const post = async (webhook: string, authorization?: string) => {
      const res = await fetch(`${t.origin}/hooks/hook-m`, {
        method: "POST",
        headers: authorization ? { authorization } : {},
        body: JSON.stringify([{ webhook, activity: { verb: "jive:created" } }]),
      });
      await res.body?.cancel();
      return res.status;
    };
    const sign = () => signJiveExtn({ ...community, jiveUrl: community.baseUrl }, secret);
    const header = await sign();
    assert.deepEqual([
      await post(ref, header),
      await post(ref, header),
      await post(ref),
      await post(`${ref}0`, await sign()),
    ], [
      200,
      200,
      401,
      404,
    ]);
    const families = await scrape(t.origin);
    assert.deepEqual(byLabel(families.get("webhooks_receiver_requests_total"), "webhooks_outcome"), {
      accepted: 1,
      duplicate: 1,
      unauthorized: 1,
      not_found: 1,
    });
    assert.equal(Number(families.get("webhooks_receiver_items_total")?.metrics[0].value), 1);
    // One postback committed: the histogram of postbacks per commit has it (no labels, so the parser keeps its count).
    const commits = families.get("webhooks_commit_postbacks") as Family & { metrics: { count?: string }[] };
    assert.equal(Number(commits.metrics[0].count), 1);
    const refused = await fetch(`${t.origin}/metrics`);
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
  } finally {
    await t.close();
  }
});

Deno.test("the console without METRICS_TOKEN answers /metrics 404, and /readyz 503 once its KV is closed", async () => {
  const t = await startConsole();
  try {
    const res = await fetch(`${t.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await res.body?.cancel();
    assert.equal(res.status, 404);
    const ready = await fetch(`${t.origin}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { ready: true }]);
    t.kv.close();
    const closed = await t.app.app.request("/readyz");
    assert.deepEqual([closed.status, await closed.json()], [503, { ready: false, reason: "the KV read failed" }]);
  } finally {
    await t.app.close();
    await t.close().catch(() => {});
  }
});
