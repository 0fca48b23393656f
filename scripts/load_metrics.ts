/**
 * The load test's local row at 16 connections with and without Prometheus:
 * two consoles (`console/main.ts`, each on a KV file of its own), one as the
 * load test runs it and one with `METRICS_TOKEN` set whose `/metrics` is
 * scraped every second while autocannon sends to it. Runs in turns, the
 * order swapped each round, a pause before each; prints req/s and the
 * server's CPU time a request of each run, and the median ratio of the
 * rounds (target: not lower, 1.00x or more).
 *
 * ```sh
 * deno run -A scripts/load_metrics.ts                   # 4 rounds of 5 s
 * deno run -A scripts/load_metrics.ts --seconds 10 --rounds 6
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadFixture, postbackBody, Signer } from "./load_postbacks.ts";
import { processCpuMs, seedConsoleKv, startProcess } from "./load_processes.ts";
import { cannon } from "./_load_cannon.ts";
import { median } from "./_bench_run.ts";

const CONNECTIONS = 16;
const TOKEN = `load-${crypto.randomUUID()}`;

const { values } = parseArgs({
  args: Deno.args,
  options: { seconds: { type: "string", default: "5" }, rounds: { type: "string", default: "4" } },
  strict: true,
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const dir = await Deno.makeTempDir({ prefix: "cw-load-metrics-" });
const fixture = loadFixture();
let seq = 0;
const signing = () => {
  const signer = new Signer(fixture.community);
  return (req: Record<string, unknown>) => ({
    ...req,
    headers: { "content-type": "application/json", authorization: signer.next() },
    body: postbackBody(fixture.ref, `load-${++seq}`),
  });
};

async function startConsole(name: string, env: Record<string, string>) {
  const kvPath = `${dir}/${name}.kv`;
  await seedConsoleKv(kvPath, fixture);
  return await startProcess(["scripts/_load_console.ts"], {
    COMMIT_COUNT_FILE: `${dir}/${name}-commits.txt`,
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: kvPath,
    SANDBOX: "on",
    DELIVERIES_RETAIN: "10000000",
    RATE_LIMIT_RECEIVER: "0",
    ...env,
  });
}

const plain = await startConsole("plain", {});
const scraped = await startConsole("scraped", { METRICS_TOKEN: TOKEN });
const signPlain = signing(), signScraped = signing();
const rps = { plain: [] as number[], scraped: [] as number[] };
const cpu = { plain: [] as number[], scraped: [] as number[] };
let scrapes = 0;
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["plain", "scraped"] as const : ["scraped", "plain"] as const;
    for (const which of order) {
      await new Promise((r) => setTimeout(r, 2_000));
      const target = which === "plain" ? plain : scraped;
      let scraping: ReturnType<typeof setInterval> | undefined;
      if (which === "scraped") {
        scraping = setInterval(async () => {
          const res = await fetch(`${scraped.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
          if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
          await res.text();
          scrapes++;
        }, 1_000);
      }
      const cpuBefore = await processCpuMs(target.pid);
      const run = await cannon(
        `${target.url}/hooks/${fixture.hook.id}`,
        CONNECTIONS,
        seconds,
        which === "plain" ? signPlain : signScraped,
      );
      clearInterval(scraping);
      const cpuAfter = await processCpuMs(target.pid);
      rps[which].push(run.rps);
      if (cpuBefore !== null && cpuAfter !== null) cpu[which].push(((cpuAfter - cpuBefore) * 1000) / run.requests);
      console.error(
        `round ${round + 1} ${which}: ${Math.round(run.rps)} req/s (${run.ok} ok, ${run.other} other), ` +
          `${cpu[which].at(-1)?.toFixed(0)} µs of server CPU a request`,
      );
    }
  }
} finally {
  await plain.stop();
  await scraped.stop();
  await Deno.remove(dir, { recursive: true });
}
const ratios = rps.scraped.map((r, i) => r / rps.plain[i]);
console.log(
  `16 connections, ${rounds} rounds of ${seconds} s: without /metrics ${Math.round(median(rps.plain))} req/s, ` +
    `with METRICS_TOKEN and /metrics scraped every second (${scrapes} scrapes) ${
      Math.round(median(rps.scraped))
    } req/s; ` +
    `scraped/plain by round ${ratios.map((r) => r.toFixed(2)).join(" ")}, median ${median(ratios).toFixed(2)}; ` +
    `server CPU a request ${median(cpu.plain).toFixed(0)} µs against ${median(cpu.scraped).toFixed(0)} µs`,
);
