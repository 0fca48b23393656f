import assert from "node:assert/strict";
import { LATENCY_TARGETS, latencySection, measureRelayLatency, quantile } from "../../scripts/relay_latency.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";
import { watchKvToken } from "./_env_watch.ts";

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
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN); // the one token of every module of this process
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

Deno.test("measureRelayLatency(): over KV Connect, takes the process's token and never changes it meanwhile", async () => {
  // Every test module of this process shares Deno.env: each sets the one TEST_TOKEN, and so does this one.
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const watch = watchKvToken();
  const result = await measureRelayLatency({ kv: "kvconnect", latencyMs: 0, rate: 20, seconds: 1 });
  assert.deepEqual(watch.stop(), [TEST_TOKEN], "DENO_KV_ACCESS_TOKEN changed while it ran");
  assert.ok(result.delivered > 0, JSON.stringify(result));
});

Deno.test("measureRelayLatency(): over KV Connect in a process with no token, sets its own and takes it away", async () => {
  // In a process of its own: taking the variable away here would fail the other modules' KV Connect opens.
  const code = `
    import { measureRelayLatency } from ${
    JSON.stringify(new URL("../../scripts/relay_latency.ts", import.meta.url).href)
  };
    await measureRelayLatency({ kv: "kvconnect", latencyMs: 0, rate: 20, seconds: 1 });
    console.log(JSON.stringify(Deno.env.get("DENO_KV_ACCESS_TOKEN") ?? null));
  `;
  const env = Deno.env.toObject();
  delete env.DENO_KV_ACCESS_TOKEN;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1), "null");
});

Deno.test({
  // The KV's open fails once its server listens (the token is read before the server starts, so no env access would
  // fail before anything was started).
  name: "measureRelayLatency(): a run that throws midway (the KV's open fails) shuts the KV Connect server it started",
  async fn() {
    Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN); // the one token of every module of this process
    const openKv = Object.getOwnPropertyDescriptor(Deno, "openKv")!;
    Object.defineProperty(Deno, "openKv", {
      configurable: true,
      value: () => Promise.reject(new Error("the KV could not be opened")),
    });
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
      await assert.rejects(
        measureRelayLatency({ kv: "kvconnect", latencyMs: 0, rate: 20, seconds: 1 }),
        /could not be opened/,
      );
      await new Promise((r) => setTimeout(r, 0)); // lets the finished promises of servers shut settle
      assert.ok(servers.length > 0);
      assert.deepEqual(servers.map((s) => s.done), servers.map(() => true), "a server was left running");
    } finally {
      Object.defineProperty(Deno, "openKv", openKv);
      (Deno as { serve: unknown }).serve = serve;
      for (const { server, done } of servers) if (!done) await server.shutdown();
    }
  },
});
