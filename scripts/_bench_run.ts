// The benchmark runner of scripts/bench.ts: options, one `deno bench --json`
// run of a suite, and the results by round (best time, median ratio), plus
// the machine's facts. Private to scripts/.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TARGETS = { growth: 1.2, overhead: 1.1, pointer: 3 };

/** One benchmark's figures, in nanoseconds, from `deno bench --json`. */
export interface Measure {
  /** Group without its ` · round <r>` tag. */
  group: string;
  name: string;
  round: number;
  avg: number;
  p75: number;
  min: number;
  n: number;
}

export interface BenchJson {
  runtime: string;
  cpu: string;
  benches: {
    group?: string;
    name: string;
    results: { ok?: { n: number; avg: number; p75: number; min: number }; failed?: unknown }[];
  }[];
}

export interface Options {
  sizes: number[];
  rounds: number;
  out: string;
}

export function parseOptions(args: string[]): Options {
  const quick = args.includes("--quick");
  const outArg = args.find((a) => a.startsWith("--out"));
  const outIndex = args.indexOf("--out");
  const out = outArg === "--out" ? args[outIndex + 1] : outArg?.slice("--out=".length);
  if (outArg !== undefined && !out) throw new TypeError("Expected a path after --out, got nothing");
  const sizes = (Deno.env.get("BENCH_SIZES") ?? (quick ? "1000,10000" : "1000,10000,100000")).split(",").map(Number);
  const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? (quick ? 1 : 9));
  return { sizes, rounds, out: out ?? join(ROOT, "BENCHMARKS.md") };
}

export function log(message: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  console.error(`[bench ${seconds} s] ${message}`);
}

export const started = performance.now();

/** Runs one `deno bench --json` and returns its measurements. */
export async function runBench(file: string, env: Record<string, string>): Promise<Measure[]> {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["bench", "-A", "--json", "--v8-flags=--expose-gc", file],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  });
  const output = await command.output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (!output.success) {
    throw new Error(`deno bench ${file} failed (exit ${output.code}):\n${stderr.slice(-4000)}`);
  }
  const json = JSON.parse(new TextDecoder().decode(output.stdout)) as BenchJson;
  const measures: Measure[] = [];
  for (const bench of json.benches) {
    const result = bench.results[0];
    if (!result?.ok) throw new Error(`Benchmark "${bench.group} / ${bench.name}" failed: ${JSON.stringify(result)}`);
    const parts = (bench.group ?? "").split(" · ");
    const roundTag = parts.at(-1)?.match(/^round (\d+)$/);
    if (roundTag) parts.pop();
    measures.push({
      group: parts.join(" · "),
      name: bench.name,
      round: roundTag ? Number(roundTag[1]) : 1,
      avg: result.ok.avg,
      p75: result.ok.p75,
      min: result.ok.min,
      n: result.ok.n,
    });
  }
  return measures;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The measurements of a run, by round. A time is a benchmark's best round:
 * the lowest of its rounds' mean times, since interference (another process
 * on the CPU, a GC pause, a SQLite checkpoint) only ever adds time (the
 * advice of Python's `timeit`). A ratio of two benchmarks of one group is
 * taken within each round, where the two ran back to back, and the median of
 * those is kept.
 */
export class Results {
  #rounds = new Map<string, Map<number, number>>();

  add(measures: Measure[]): void {
    for (const m of measures) {
      const key = `${m.group}\u0000${m.name}`;
      const rounds = this.#rounds.get(key) ?? new Map<number, number>();
      rounds.set(m.round, m.avg);
      this.#rounds.set(key, rounds);
    }
  }

  /** Best round's mean time in ns, or `undefined` when not measured. */
  time(group: string, name: string): number | undefined {
    const rounds = this.#rounds.get(`${group}\u0000${name}`);
    return rounds?.size ? Math.min(...rounds.values()) : undefined;
  }

  /** `a`'s time over `b`'s in each round both ran in. */
  roundRatios(group: string, a: string, b: string, groupB: string = group): number[] {
    const ra = this.#rounds.get(`${group}\u0000${a}`);
    const rb = this.#rounds.get(`${groupB}\u0000${b}`);
    if (!ra || !rb) return [];
    return [...ra].filter(([round]) => rb.has(round)).map(([round, t]) => t / rb.get(round)!);
  }

  /** Median over the rounds both ran in of one benchmark's time over another's, of another group. */
  ratioAcross(groupA: string, a: string, groupB: string, b: string): number | undefined {
    const ratios = this.roundRatios(groupA, a, b, groupB);
    return ratios.length ? median(ratios) : undefined;
  }

  /** Median over the rounds both ran in of `a`'s time over `b`'s. */
  ratio(group: string, a: string, b: string): number | undefined {
    const ratios = this.roundRatios(group, a, b);
    return ratios.length ? median(ratios) : undefined;
  }
}

// ---------------------------------------------------------------------------
// Machine

export interface Machine {
  cpu: string;
  cores: number;
  memory: string;
  os: string;
  deno: string;
  load: string;
}

export async function machine(): Promise<Machine> {
  let cpu = "unknown CPU";
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    cpu = info.match(/^model name\s*:\s*(.+)$/m)?.[1].trim() ?? cpu;
  } catch {
    // not Linux: keep "unknown CPU"
  }
  const memory = Deno.systemMemoryInfo();
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    memory: `${(memory.total / 1024 ** 3).toFixed(1)} GiB`,
    os: `${Deno.build.os} ${Deno.osRelease()} (${Deno.build.arch})`,
    deno: `Deno ${Deno.version.deno}, V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript}`,
    load: Deno.loadavg().map((l) => l.toFixed(2)).join(", "),
  };
}
