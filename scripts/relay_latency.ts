/**
 * How long a postback takes from the receiver's 200 to the request that
 * forwards it (issue 45's target: p50 at most 20 ms and p99 at most 100 ms
 * on a local KV at 50 postbacks a second). In one process, as the console
 * runs them: a receiver whose `write` is `relay.write` (through `Deno.serve`
 * on 127.0.0.1), one relay worker with its default options, and an app on
 * 127.0.0.1 that answers 200 at once. Signed one-item postbacks go out at a
 * fixed rate, each on its own schedule (a slow answer does not slow the
 * rate); the time of each is taken when its 200 arrives and when the app
 * receives its forward. Beside each postback, in the same run and at the same
 * rate, a bare POST straight to the app gives the floor: what one hop on this
 * machine takes from send to receipt.
 *
 *   deno task relay-latency [--seconds 20] [--rate 50] [--kv file,memory,kvconnect] [--latency 20] [--print]
 *
 * `kvconnect` runs the same over the project's KV Connect server on the
 * machine, each of its answers `--latency` ms late (a KV far away, as `cli
 * listen` works from a laptop): no target there, a local KV's. `--latency`
 * without `kvconnect` in `--kv` is refused: no server would hold anything.
 *
 * Without `--print` the section between its markers in BENCHMARKS.md is
 * written again.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { createReceiver, createRelay, createWebhooks, signJiveExtn } from "../webhooks/mod.ts";
import { processKvToken, startKvConnectServer } from "../kvconnect/mod.ts";

/** The targets: ms from the receiver's 200 to the app's receipt. */
export const LATENCY_TARGETS = { p50: 20, p99: 100 };

const SECRET = btoa("the latency run's client secret");
const SIGN = { clientId: "client-latency", jiveUrl: "https://latency.example", tenantId: "tenant-latency" };
const REF = "https://latency.example/api/core/v3/webhooks/1";
const START = "<!-- relay-latency:start -->";
const END = "<!-- relay-latency:end -->";
/** Postbacks sent before the measured ones: the worker's first take and the code's first runs are not timed. */
const WARMUP = 20;

/** Where a run's KV is: a file, `:memory:`, or the KV Connect test server. */
export type LatencyKv = "file" | "memory" | "kvconnect";
const KINDS: LatencyKv[] = ["file", "memory", "kvconnect"];

/** One run's figures, ms. */
export interface LatencyResult {
  kv: LatencyKv;
  /** The KV Connect server's added latency, ms (absent for a local KV). */
  latencyMs?: number;
  rate: number;
  /** Postbacks answered 200 and timed (after the warm-up). */
  sent: number;
  /** Of those, forwarded to the app before the run ended. */
  delivered: number;
  p50: number;
  p99: number;
  max: number;
  /** The floor: a bare POST to the app, from send to receipt. */
  directP50: number;
  directP99: number;
}

/** The `q` quantile (0 to 1) of `values`, by the nearest rank; NaN when there are none. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Sends `rate` postbacks a second for `seconds` (after a short warm-up) and times each forward. */
export async function measureRelayLatency(
  options: { kv: LatencyKv; rate: number; seconds: number; latencyMs?: number },
): Promise<LatencyResult> {
  const { rate, seconds } = options;
  // What the run opened, undone in reverse however it ends (a throw midway included).
  const undo: (() => unknown)[] = [];
  const undoFailures: unknown[] = [];
  const forwarded = new Map<string, number>(); // marker -> when the app got it
  const direct = new Map<string, number>();
  const answered = new Map<string, number>(); // marker -> when its 200 arrived
  const sentAt = new Map<string, number>(); // direct marker -> when it was sent
  try {
    const dir = options.kv === "file" ? await Deno.makeTempDir({ prefix: "cw-relay-latency-" }) : null;
    if (dir) undo.push(() => Deno.remove(dir, { recursive: true }));
    let remote: { url: string; close(): Promise<void> } | null = null;
    if (options.kv === "kvconnect") {
      // Deno.openKv reads the token from Deno.env, one per process: its own when it has one, else the run's.
      const { token, restore } = processKvToken("relay-latency-token-0123456789");
      undo.push(restore);
      const server = await startKvConnectServer({ path: ":memory:", token, latencyMs: options.latencyMs ?? 0 });
      undo.push(() => server.close());
      remote = server;
    }
    const kv = await Deno.openKv(remote ? remote.url : dir ? `${dir}/kv.sqlite3` : ":memory:");
    undo.push(() => kv.close());
    const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
      const at = performance.now();
      const body = await request.json();
      if (body.direct) direct.set(body.direct, at);
      else forwarded.set(body.data.activity.title, at);
      return new Response("ok");
    });
    undo.push(() => app.shutdown());
    const hooks = createWebhooks(kv);
    await hooks.communities.save({ name: "Latency", ...SIGN, baseUrl: SIGN.jiveUrl, clientSecret: SECRET });
    await hooks.save({ id: "hook-latency", tenantId: SIGN.tenantId, entity: { resources: { self: { ref: REF } } } });
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    undo.push(() => relay.close());
    await relay.destinations.add({ url: `http://127.0.0.1:${app.addr.port}/hooks` });
    const receiver = createReceiver(hooks, { write: relay.write });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, receiver.handle);
    undo.push(() => server.shutdown());
    const receiverUrl = `http://127.0.0.1:${server.addr.port}/hooks`;
    const appUrl = `http://127.0.0.1:${app.addr.port}/direct`;
    const worker = relay.run();
    undo.push(() => worker.stop());
    let timestamp = Date.now() - 4 * 60_000;
    const total = WARMUP + Math.round(rate * seconds);
    const sends: Promise<void>[] = [];
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const marker = `latency-${i}`;
      timestamp = Math.max(timestamp + 1, Date.now() - 4 * 60_000);
      const authorization = await signJiveExtn({ ...SIGN, timestamp }, SECRET);
      const body = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: marker } }]);
      sends.push((async () => {
        const response = await fetch(receiverUrl, { method: "POST", headers: { authorization }, body });
        await response.body?.cancel();
        if (response.status === 200 && i >= WARMUP) answered.set(marker, performance.now());
      })());
      sends.push((async () => {
        sentAt.set(marker, performance.now());
        await (await fetch(appUrl, { method: "POST", body: JSON.stringify({ direct: marker }) })).body?.cancel();
      })());
    }
    await Promise.all(sends);
    // Forwards still on their way get up to 5 s.
    const until = performance.now() + 5_000;
    while ([...answered.keys()].some((m) => !forwarded.has(m)) && performance.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    // In reverse, one at a time; each step runs even when one before it failed (the run's own error, if any, wins).
    for (const step of undo.reverse()) await Promise.resolve().then(step).catch((e) => undoFailures.push(e));
  }
  if (undoFailures.length > 0) throw undoFailures[0];
  const latencies = [...answered].filter(([m]) => forwarded.has(m)).map(([m, at]) => forwarded.get(m)! - at);
  const floor = [...sentAt].filter(([m]) => direct.has(m)).slice(WARMUP).map(([m, at]) => direct.get(m)! - at);
  return {
    kv: options.kv,
    ...(options.kv === "kvconnect" ? { latencyMs: options.latencyMs ?? 0 } : {}),
    rate,
    sent: answered.size,
    delivered: latencies.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: Math.max(...latencies),
    directP50: quantile(floor, 0.5),
    directP99: quantile(floor, 0.99),
  };
}

/** The BENCHMARKS.md section of some runs. */
export function latencySection(results: LatencyResult[], seconds: number): string {
  const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "—");
  const met = (r: LatencyResult) =>
    r.kv === "kvconnect"
      ? "no target (a local KV's)"
      : r.delivered === r.sent && r.p50 <= LATENCY_TARGETS.p50 && r.p99 <= LATENCY_TARGETS.p99
      ? "met"
      : "**missed**";
  const where = (r: LatencyResult) => r.kv === "kvconnect" ? `KV Connect +${r.latencyMs ?? 0} ms` : r.kv;
  return [
    START,
    "### From the receiver's 200 to the forward",
    "",
    `\`deno task relay-latency\`: a receiver whose \`write\` is \`relay.write\` and one relay worker in one process, an`,
    `app on 127.0.0.1 that answers at once, signed one-item postbacks at a fixed rate for ${seconds} s (after ${WARMUP}`,
    "not timed); each postback's time from its 200 to the app's receipt of its forward (below zero when the forward",
    "reached the app before the 200 reached the sender). _Direct_ is a bare POST to the same app sent beside each",
    "postback: one hop on this machine, from send to receipt.",
    ...(results.some((r) => r.kv === "kvconnect")
      ? [
        "",
        "_KV Connect +N ms_: the project's KV Connect server in the same process, each answer N ms late (a KV far",
        "away, as `cli listen` works from a laptop); issue 45's target is a local KV's.",
      ]
      : []),
    "",
    "| KV | postbacks/s | timed | forwarded | p50 ms | p99 ms | max ms | direct p50 ms | direct p99 ms | target (p50 ≤ 20, p99 ≤ 100) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...results.map((r) =>
      `| ${where(r)} | ${r.rate} | ${r.sent} | ${r.delivered} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ` +
      `${ms(r.directP50)} | ${ms(r.directP99)} | ${met(r)} |`
    ),
    "",
    `Machine: ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}, ` +
    `${new Date().toISOString().slice(0, 10)}.`,
    END,
  ].join("\n");
}

async function writeSection(section: string): Promise<void> {
  const path = new URL("../BENCHMARKS.md", import.meta.url);
  const text = await Deno.readTextFile(path);
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const relay = text.indexOf("## How to read this");
  const next = start >= 0 && end > start
    ? text.slice(0, start) + section + text.slice(end + END.length)
    : relay >= 0
    ? `${text.slice(0, relay)}${section}\n\n${text.slice(relay)}`
    : `${text.trimEnd()}\n\n${section}\n`;
  await Deno.writeTextFile(path, next);
}

/** What the command line asks for: the run's length and rate, the KVs in order, the KV Connect latency, print or write. */
export interface LatencyArgs {
  seconds: number;
  rate: number;
  kinds: LatencyKv[];
  latencyMs: number;
  print: boolean;
}

/** Reads the command line; a bad value is a RangeError naming its flag. */
export function parseLatencyArgs(args: string[]): LatencyArgs {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: "string", default: "20" },
      rate: { type: "string", default: "50" },
      kv: { type: "string", default: "file,memory" },
      latency: { type: "string" },
      print: { type: "boolean", default: false },
    },
    strict: true,
  });
  // Plain decimals only, as the project's other scripts read them: Number() would take '0x10', '1e3', ' 5' or ''.
  const decimal = (value: string) => /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  const seconds = decimal(values.seconds), rate = decimal(values.rate);
  if (!(seconds >= 1 && seconds <= 300)) {
    throw new RangeError(`--seconds must be from 1 to 300, got '${values.seconds}'`);
  }
  // Below one a second is sparse traffic: a writer's list of destinations goes stale between postbacks, so each is
  // stored as a fan-out record for a worker to turn into entries, the path `cli listen` meets most.
  if (!(rate > 0 && rate <= 1000)) {
    throw new RangeError(`--rate must be above 0 and at most 1000 a second (0.5: one every 2 s), got '${values.rate}'`);
  }
  const kinds = values.kv.split(",").map((k) => k.trim());
  const bad = kinds.find((k) => !KINDS.includes(k as LatencyKv));
  if (bad !== undefined) {
    throw new RangeError(`--kv must list some of file, memory and kvconnect, got '${values.kv}' ('${bad}' is none)`);
  }
  const twice = kinds.find((k, i) => kinds.indexOf(k) !== i);
  if (twice !== undefined) throw new RangeError(`--kv names '${twice}' more than once, got '${values.kv}'`);
  const latency = values.latency ?? "20";
  const latencyMs = /^\d+$/.test(latency) ? Number(latency) : NaN;
  if (!(latencyMs <= 1000)) {
    throw new RangeError(`--latency must be a whole number of ms from 0 to 1000, got '${latency}'`);
  }
  // Only the KV Connect server can be held back: a delay asked for with no server to hold would run undelayed.
  if (values.latency !== undefined && !kinds.includes("kvconnect")) {
    throw new RangeError(
      `--latency delays the KV Connect server only: add kvconnect to --kv (got --kv '${values.kv}')`,
    );
  }
  return { seconds, rate, kinds: kinds as LatencyKv[], latencyMs, print: values.print };
}

if (import.meta.main) {
  const { seconds, rate, kinds, latencyMs, print } = parseLatencyArgs(Deno.args);
  const results: LatencyResult[] = [];
  for (const kind of kinds) {
    results.push(await measureRelayLatency({ kv: kind, rate, seconds, latencyMs }));
    console.error(JSON.stringify(results.at(-1)));
  }
  const section = latencySection(results, seconds);
  if (print) console.log(section);
  else await writeSection(section);
}
