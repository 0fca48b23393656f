/**
 * docs/observability.md and docs/grafana-dashboard.json agree with what the
 * console's `/metrics` serves: every series the dashboard's panels and the
 * alert rules query is one it exposes, and the metric table names every
 * metric of the package with its Prometheus name.
 */

import assert from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import { createConsoleMetrics, prometheusName } from "../../console/lib/metrics.ts";
import {
  observeMetrics,
  platformOperation,
  receiveEnded,
  receiveStarted,
  WEBHOOKS_METRICS,
} from "../../webhooks/telemetry/mod.ts";

const root = new URL("../../", import.meta.url);

/** The series names /metrics serves: each family, and a histogram's `_bucket`, `_sum` and `_count`. */
async function servedSeries(): Promise<Set<string>> {
  const metrics = createConsoleMetrics({ metrics: WEBHOOKS_METRICS, observe: observeMetrics });
  try {
    receiveEnded(receiveStarted()!, 200, performance.now(), { itemCount: 1 });
    await platformOperation("register", () => Promise.resolve());
    const families: { name: string; type: string }[] = parsePrometheus(await metrics.text());
    const names = new Set<string>();
    for (const { name, type } of families) {
      names.add(name);
      if (type === "HISTOGRAM" || type === "SUMMARY") {
        for (const s of ["_bucket", "_sum", "_count"]) names.add(name + s);
      }
    }
    return names;
  } finally {
    metrics.close();
  }
}

/** Series names in PromQL: identifiers followed by a label matcher `{` or standing alone before `[`/`)`. */
function seriesIn(expr: string): string[] {
  const functions = new Set(["sum", "rate", "by", "histogram_quantile", "le", "and", "or", "without", "unless"]);
  return [...expr.matchAll(/\b([a-z_][a-z0-9_]*)\s*(?=\{|\[)/g)].map((m) => m[1]).filter((name) =>
    !functions.has(name)
  );
}

Deno.test("every series the Grafana dashboard queries is one /metrics serves", async () => {
  const served = await servedSeries();
  const dashboard = JSON.parse(await Deno.readTextFile(new URL("docs/grafana-dashboard.json", root)));
  const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) =>
    p.targets.map((t) => t.expr)
  );
  assert.ok(exprs.length >= 10);
  const used = new Set(exprs.flatMap(seriesIn));
  for (const name of WEBHOOKS_METRICS.map(prometheusName)) {
    assert.ok([...used].some((u) => u.startsWith(name)), `the dashboard shows ${name}`);
  }
  for (const name of used) assert.ok(served.has(name), `/metrics serves ${name}`);
});

Deno.test("the alert rules in docs/observability.md query series /metrics serves: 401 rate, 5xx rate, p99, dead letters", async () => {
  const served = await servedSeries();
  const doc = await Deno.readTextFile(new URL("docs/observability.md", root));
  const rules = doc.slice(doc.indexOf("## Alert rules"), doc.indexOf("## Grafana"));
  const exprs = [...rules.matchAll(/expr: \|\n([\s\S]*?)\n\s+for:/g)].map((m) => m[1]);
  assert.equal(exprs.length, 4);
  assert.match(exprs[0], /webhooks_outcome="unauthorized"/);
  assert.match(exprs[1], /webhooks_outcome="error"/);
  assert.match(exprs[2], /histogram_quantile\(0\.99,/);
  // Dead letters, `dead` and `gone`: by increase(), which needs two samples of a series, and on a series' first
  // appearance (the first dead letter after a start, or ever) by the series less its value 15 minutes before.
  const dead = 'webhooks_relay_attempts_total{webhooks_outcome=~"dead|gone"}';
  const flat = exprs[3].replace(/\s+/g, " ");
  assert.ok(flat.includes(`increase(${dead}[15m])`), flat);
  assert.ok(flat.includes(`${dead} unless ${dead} offset 15m`), `fires on a series' first appearance: ${flat}`);
  assert.equal(flat.split("(").length, flat.split(")").length, `parentheses balanced: ${flat}`);
  for (const name of exprs.flatMap(seriesIn)) assert.ok(served.has(name), `/metrics serves ${name}`);
});

Deno.test("the metric table in docs/observability.md names each metric with its Prometheus name and unit", async () => {
  const doc = await Deno.readTextFile(new URL("docs/observability.md", root));
  for (const metric of WEBHOOKS_METRICS) {
    const row = doc.split("\n").find((line) => line.startsWith(`| \`${metric.name}\``));
    assert.ok(row, `a row for ${metric.name}`);
    assert.ok(row.includes(`\`${prometheusName(metric)}\``), row);
    assert.ok(row.includes(`${metric.kind}, \`${metric.unit}\``), row);
  }
});
