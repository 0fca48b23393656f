/**
 * An OTLP/HTTP receiver for tests and benches: a real server on 127.0.0.1
 * that takes what Deno's OpenTelemetry exports with
 * `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` (`/v1/traces`, `/v1/metrics`,
 * `/v1/logs`), keeps every byte it was sent, and reads spans and metric data
 * points out of it.
 *
 * @module
 */

/** An attribute value as OTLP/JSON carries it. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

type Attributes = Record<string, string | number | boolean>;

/** One exported span. */
export interface ExportedSpan {
  name: string;
  scope: string;
  traceId: string;
  spanId: string;
  /** `""` for a root span. */
  parentSpanId: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Attributes;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** Start and end, epoch ms (from OTLP's ns; µs precision). */
  startMs: number;
  endMs: number;
}

/** One data point of a metric in its latest export: a sum's value, or a histogram's count and sum. */
export interface DataPoint {
  attributes: Attributes;
  value?: number;
  count?: number;
  sum?: number;
  bucketCounts?: number[];
  explicitBounds?: number[];
}

/** One exported metric, as its latest export gave it. */
export interface ExportedMetric {
  name: string;
  scope: string;
  unit: string;
  kind: "sum" | "histogram" | "gauge";
  /** OTLP's aggregation temporality: 2 cumulative. */
  temporality?: number;
  monotonic?: boolean;
  points: DataPoint[];
}

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return JSON.stringify(v);
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Attributes {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/** The running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  /** The environment of a child process that exports here (metrics and spans every `intervalMs`). */
  env(intervalMs?: number): Record<string, string>;
  /** Every byte received so far, decoded (all signals). */
  text(): string;
  /** Every span received so far. */
  spans(): ExportedSpan[];
  /** Each metric as its latest export gave it (sums and histograms are cumulative). */
  metrics(): Map<string, ExportedMetric>;
  /** How many exports of each path (`/v1/traces`, ...) arrived. */
  exports(): Record<string, number>;
  /** Resolves once `check` is true of what arrived, polling; rejects after `timeoutMs` with `what`. */
  waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts an OTLP/HTTP (JSON) receiver on 127.0.0.1. */
export function startOtlpReceiver(): OtlpReceiver {
  const bodies: { path: string; text: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    bodies.push({ path: new URL(request.url).pathname, text: await request.text() });
    return new Response("{}", { headers: { "content-type": "application/json" } });
  });
  const endpoint = `http://127.0.0.1:${server.addr.port}`;
  const json = (path: string) => bodies.filter((b) => b.path === path).map((b) => JSON.parse(b.text));

  return {
    endpoint,
    env: (intervalMs = 200) => ({
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_METRIC_EXPORT_INTERVAL: String(intervalMs),
      // Spans in batches this often too (the batch processor's default waits 5 s).
      OTEL_BSP_SCHEDULE_DELAY: String(intervalMs),
      OTEL_SERVICE_NAME: "community-webhooks-test",
    }),
    text: () => bodies.map((b) => b.text).join("\n"),
    spans() {
      const spans: ExportedSpan[] = [];
      for (const body of json("/v1/traces")) {
        for (const rs of body.resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                name: s.name,
                scope: ss.scope?.name ?? "",
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                status: s.status?.code ?? 0,
                startMs: Number(BigInt(s.startTimeUnixNano) / 1000n) / 1000,
                endMs: Number(BigInt(s.endTimeUnixNano) / 1000n) / 1000,
              });
            }
          }
        }
      }
      return spans;
    },
    metrics() {
      const latest = new Map<string, ExportedMetric>();
      for (const body of json("/v1/metrics")) {
        for (const rm of body.resourceMetrics ?? []) {
          for (const sm of rm.scopeMetrics ?? []) {
            for (const m of sm.metrics ?? []) {
              const data = m.sum ?? m.histogram ?? m.gauge;
              const kind = m.sum ? "sum" : m.histogram ? "histogram" : "gauge";
              latest.set(m.name, {
                name: m.name,
                scope: sm.scope?.name ?? "",
                unit: m.unit ?? "",
                kind,
                temporality: data?.aggregationTemporality,
                monotonic: data?.isMonotonic,
                points: (data?.dataPoints ?? []).map((p: Record<string, unknown>) => ({
                  attributes: attributesOf(p.attributes as { key: string; value: AnyValue }[]),
                  value: p.asDouble !== undefined
                    ? Number(p.asDouble)
                    : p.asInt !== undefined
                    ? Number(p.asInt)
                    : undefined,
                  count: p.count !== undefined ? Number(p.count) : undefined,
                  sum: p.sum !== undefined ? Number(p.sum) : undefined,
                  bucketCounts: (p.bucketCounts as string[] | undefined)?.map(Number),
                  explicitBounds: p.explicitBounds as number[] | undefined,
                })),
              });
            }
          }
        }
      }
      return latest;
    },
    exports() {
      const counts: Record<string, number> = {};
      for (const b of bodies) counts[b.path] = (counts[b.path] ?? 0) + 1;
      return counts;
    },
    async waitFor(check, what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) {
          throw new Error(`Timed out waiting for ${what}; exports: ${JSON.stringify(this.exports())}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => server.shutdown(),
  };
}
