import assert from "node:assert/strict";
import { LATENCY_TARGETS, latencySection, measureRelayLatency, quantile } from "../../scripts/relay_latency.ts";

Deno.test("quantile(): the nearest rank, whatever the order; NaN for no values", () => {
  const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(quantile(values, 0.5), 5);
  assert.equal(quantile(values, 0.99), 10);
  assert.equal(quantile(values, 0), 1);
  assert.equal(quantile([7], 0.99), 7);
  assert.ok(Number.isNaN(quantile([], 0.5)));
  assert.deepEqual(values, [5, 1, 4, 2, 3, 10, 9, 8, 7, 6]); // not sorted in place
});

Deno.test("measureRelayLatency(): every postback answered 200 at the rate is forwarded and timed, on a KV file", async () => {
  const result = await measureRelayLatency({ kv: "file", rate: 20, seconds: 1 });
  assert.equal(result.sent, 20);
  assert.equal(result.delivered, 20);
  for (const figure of [result.p50, result.p99, result.max, result.directP50, result.directP99]) {
    assert.ok(Number.isFinite(figure) && figure < 5_000, JSON.stringify(result));
  }
  assert.ok(result.p50 <= result.p99 && result.p99 <= result.max, JSON.stringify(result));
});

Deno.test("measureRelayLatency(): over KV Connect 40 ms away, every postback is forwarded and timed", async () => {
  const result = await measureRelayLatency({ kv: "kvconnect", latencyMs: 40, rate: 20, seconds: 1 });
  assert.deepEqual([result.kv, result.latencyMs, result.sent, result.delivered], ["kvconnect", 40, 20, 20]);
  for (const figure of [result.p50, result.p99, result.max, result.directP50, result.directP99]) {
    assert.ok(Number.isFinite(figure) && figure < 10_000, JSON.stringify(result));
  }
});

Deno.test("latencySection(): a KV far away is named with its latency and judged against no target", () => {
  const far = { kv: "kvconnect" as const, latencyMs: 20, rate: 50, sent: 100, delivered: 100, p50: 60, p99: 150 };
  const section = latencySection([{ ...far, max: 200, directP50: 1, directP99: 2 }], 20);
  const row = section.split("\n").find((line) => line.startsWith("| KV Connect +20 ms"));
  assert.ok(row, section);
  assert.equal(row.split("|").at(-2)!.trim(), "no target (a local KV's)");
});

Deno.test("latencySection(): the verdict against the targets, and a forward missing is a miss", () => {
  const base = {
    kv: "file" as const,
    rate: 50,
    sent: 100,
    delivered: 100,
    p50: 3,
    p99: 20,
    max: 30,
    directP50: 1,
    directP99: 2,
  };
  const rows = latencySection([
    base,
    { ...base, p99: LATENCY_TARGETS.p99 + 1 },
    { ...base, delivered: 99 },
  ], 20).split("\n").filter((line) => line.startsWith("| file"));
  assert.deepEqual(rows.map((row) => row.split("|").at(-2)!.trim()), ["met", "**missed**", "**missed**"]);
});

Deno.test("measureRelayLatency(): over KV Connect, leaves DENO_KV_ACCESS_TOKEN as it found it, set or not", async () => {
  const before = Deno.env.get("DENO_KV_ACCESS_TOKEN");
  try {
    Deno.env.delete("DENO_KV_ACCESS_TOKEN");
    await measureRelayLatency({ kv: "kvconnect", latencyMs: 0, rate: 20, seconds: 1 });
    assert.equal(Deno.env.get("DENO_KV_ACCESS_TOKEN"), undefined);
    Deno.env.set("DENO_KV_ACCESS_TOKEN", "the-callers-own-token-0123456789");
    await measureRelayLatency({ kv: "kvconnect", latencyMs: 0, rate: 20, seconds: 1 });
    assert.equal(Deno.env.get("DENO_KV_ACCESS_TOKEN"), "the-callers-own-token-0123456789");
  } finally {
    if (before === undefined) Deno.env.delete("DENO_KV_ACCESS_TOKEN");
    else Deno.env.set("DENO_KV_ACCESS_TOKEN", before);
  }
});

Deno.test({
  name: "measureRelayLatency(): a run that throws midway (no env access) shuts the KV Connect server it started",
  permissions: { net: true, read: true, write: true, env: false },
  async fn() {
    const serve = Deno.serve;
    const servers: { server: Deno.HttpServer; done: boolean }[] = [];
    // deno-lint-ignore no-explicit-any
    (Deno as any).serve = (...args: unknown[]) => {
      // deno-lint-ignore no-explicit-any
      const server = (serve as any)(...args) as Deno.HttpServer;
      const seen = { server, done: false };
      server.finished.then(() => seen.done = true);
      servers.push(seen);
      return server;
    };
    try {
      await assert.rejects(measureRelayLatency({ kv: "kvconnect", latencyMs: 0, rate: 20, seconds: 1 }));
      await new Promise((r) => setTimeout(r, 0)); // lets the finished promises of servers shut settle
      assert.ok(servers.length > 0);
      assert.deepEqual(servers.map((s) => s.done), servers.map(() => true), "a server was left running");
    } finally {
      (Deno as { serve: unknown }).serve = serve;
      for (const { server, done } of servers) if (!done) await server.shutdown();
    }
  },
});
