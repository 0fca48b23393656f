/**
 * Runs bench/telemetry_bench.ts: the receiver's `write` handle with
 * telemetry on (Deno's OpenTelemetry exporting to an OTLP/HTTP receiver
 * started here), off, and as the package was before telemetry (REF's
 * `webhooks/`, taken out with `git archive`), in one process; prints the
 * median ratio over rounds of on/off and off/before.
 *
 * ```sh
 * deno run -A scripts/bench_telemetry.ts                 # before: the merge base with main
 * deno run -A scripts/bench_telemetry.ts --before 8b3c06d
 * BENCH_ROUNDS=4 deno run -A scripts/bench_telemetry.ts
 * ```
 *
 * @module
 */

import { startOtlpReceiver } from "../tests/otlp_receiver.ts";
import { log, Results, ROOT, runBench } from "./_bench_run.ts";

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
  results.add(
    await runBench("bench/telemetry_bench.ts", {
      ...otlp.env(1000),
      TELEMETRY_BENCH_BEFORE: `${dir}/webhooks/mod.ts`,
      BENCH_ROUNDS: Deno.env.get("BENCH_ROUNDS") ?? "2",
    }),
  );
  for (const [group, label] of [["telemetry · one", "one at a time"], ["telemetry · 16", "16 at once"]]) {
    const name = (mode: string) => `write handle · ${mode} · ${label}`;
    const us = (mode: string) => ((results.time(group, name(mode)) ?? NaN) / 1000).toFixed(1);
    const onOff = results.ratio(group, name("on"), name("off"));
    const offBefore = results.ratio(group, name("off"), name("before"));
    console.log(
      `${label}: before ${us("before")} µs, off ${us("off")} µs, on ${us("on")} µs; ` +
        `on/off ${onOff?.toFixed(3)} (target ≤ 1.10), off/before ${offBefore?.toFixed(3)} (target ≤ 1.02)`,
    );
  }
  const spans = otlp.spans().filter((s) => s.name === "webhooks.receive").length;
  console.log(`exported while on: ${spans} webhooks.receive spans; exports ${JSON.stringify(otlp.exports())}`);
} finally {
  await otlp.close();
  await Deno.remove(dir, { recursive: true });
}
