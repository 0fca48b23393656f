/**
 * Runs bench/telemetry_bench.ts: the receiver's `write` handle with
 * telemetry on (Deno's OpenTelemetry exporting to an OTLP/HTTP receiver
 * started here), off, and as the package was at REF (its `webhooks/`, taken
 * out with `git archive`) with OpenTelemetry taken as absent ("before") and,
 * when REF has telemetry of its own, recording ("before-on"), in one
 * process; prints the median ratio over rounds of on/off, off/before and
 * on/before-on; then the CPU time per postback of each in interleaved
 * batches (bench/_telemetry_cpu.ts), which other work on the machine
 * disturbs less, and where it went by thread. The exporter sends OTLP/HTTP
 * protobuf (Deno's default; `BENCH_OTLP_PROTOCOL=http/json` for JSON).
 *
 * ```sh
 * deno run -A scripts/bench_telemetry.ts                 # before: the merge base with main
 * deno run -A scripts/bench_telemetry.ts --before c268bff   # main with its telemetry: before-on rows too
 * BENCH_ROUNDS=60 deno run -A scripts/bench_telemetry.ts     # more rounds of deno bench (default 30)
 * ```
 *
 * @module
 */

import { startOtlpReceiver } from "../tests/otlp_receiver.ts";
import { log, median, Results, ROOT, runBench } from "./_bench_run.ts";

async function git(...args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("git", { args, cwd: ROOT, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

const at = Deno.args.indexOf("--before");
const ref = at >= 0 ? Deno.args[at + 1] : new TextDecoder().decode(await git("merge-base", "HEAD", "main")).trim();
const dir = await Deno.makeTempDir({ prefix: "telemetry_before_" });
const otlp = startOtlpReceiver();
try {
  const tar = await Deno.makeTempFile({ suffix: ".tar" });
  await Deno.writeFile(tar, await git("archive", "--format=tar", ref, "webhooks"));
  const untar = await new Deno.Command("tar", { args: ["-xf", tar, "-C", dir] }).output();
  if (!untar.success) throw new Error("tar failed");
  await Deno.remove(tar);
  log(`before: ${ref} (${dir}); OTLP receiver: ${otlp.endpoint}`);

  const results = new Results();
  const benchEnv = {
    ...otlp.env(1000),
    // Deno's default, as a deployment would send: JSON costs the exporter more.
    OTEL_EXPORTER_OTLP_PROTOCOL: Deno.env.get("BENCH_OTLP_PROTOCOL") ?? "http/protobuf",
    TELEMETRY_BENCH_BEFORE: `${dir}/webhooks/mod.ts`,
    BENCH_ROUNDS: Deno.env.get("BENCH_ROUNDS") ?? "30",
  };
  results.add(await runBench("bench/telemetry_bench.ts", benchEnv));
  for (const [group, label] of [["telemetry · one", "one at a time"], ["telemetry · 16", "16 at once"]]) {
    const name = (mode: string) => `write handle · ${mode} · ${label}`;
    const us = (mode: string) => ((results.time(group, name(mode)) ?? NaN) / 1000).toFixed(1);
    const onOff = results.ratio(group, name("on"), name("off"));
    const offBefore = results.ratio(group, name("off"), name("before"));
    const onBeforeOn = results.ratio(group, name("on"), name("before-on"));
    console.log(
      `${label}: before ${us("before")} µs, off ${us("off")} µs, on ${us("on")} µs, before-on ${us("before-on")} µs; ` +
        `on/off ${onOff?.toFixed(3)} (target ≤ 1.10), off/before ${offBefore?.toFixed(3)} (target ≤ 1.02), ` +
        `on/before-on ${onBeforeOn?.toFixed(3)}`,
    );
  }
  // CPU time, interleaved batches: the median of each batch's ratio.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "bench/_telemetry_cpu.ts"],
    cwd: ROOT,
    env: { ...benchEnv },
    stdout: "piped",
  }).output();
  if (!out.success) throw new Error("bench/_telemetry_cpu.ts failed");
  const { batches: cpu, threads }: {
    batches: Record<string, number[]>;
    threads: Record<string, Record<string, number>>;
  } = JSON.parse(new TextDecoder().decode(out.stdout));
  for (const label of ["one at a time", "16 at once"]) {
    const of = (mode: string) => cpu[`${mode} · ${label}`] ?? [];
    const ratios = (a: string, b: string) => median(of(a).map((x, i) => x / of(b)[i]));
    console.log(
      `CPU per postback, ${label}: before ${median(of("before")).toFixed(0)} µs, off ${
        median(of("off")).toFixed(0)
      } µs, ` +
        `on ${median(of("on")).toFixed(0)} µs, before-on ${median(of("before-on")).toFixed(0)} µs; ` +
        `on/off ${ratios("on", "off").toFixed(3)}, off/before ${ratios("off", "before").toFixed(3)}, ` +
        `on/before-on ${ratios("on", "before-on").toFixed(3)} (medians over ${of("off").length} interleaved batches)`,
    );
  }
  // Where the CPU went, by thread: js (the event loop), kv (SQLite), gc (V8's helpers), otel (Deno's exporter).
  for (const [key, kinds] of Object.entries(threads)) {
    const parts = Object.entries(kinds).filter(([, us]) => us >= 0.05).map(([kind, us]) => `${kind} ${us.toFixed(1)}`);
    console.log(`CPU µs per postback by thread, ${key}: ${parts.join(", ")}`);
  }
  console.log(`exports received while on: ${JSON.stringify(otlp.exports())}`);
} finally {
  await otlp.close();
  await Deno.remove(dir, { recursive: true });
}
