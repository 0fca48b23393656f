// The CPU time (user + system, every thread of the process: the exporter's
// too) that the receiver's write handle takes per postback, before, off and
// on, in short interleaved batches; what a machine shared with other work
// disturbs less than wall time. Run by scripts/bench_telemetry.ts; prints
// one JSON object: `batches`, per mode and shape the CPU µs per postback of
// each batch, in order (batch i of every mode ran side by side); and
// `threads`, per mode and shape the mean CPU µs per postback of each kind of
// thread (Linux: /proc/self/task; 10 ms ticks, so only the mean over all
// batches means anything).

import process from "node:process";
import { type Mode, setUp, use } from "./_telemetry_setup.ts";

const BATCHES = Number(Deno.env.get("BENCH_CPU_BATCHES") ?? "20");
const PER_BATCH = 160;

/** Each kind of thread's CPU ms so far: the JS thread, KV's SQLite worker, V8's GC helpers, OpenTelemetry's exporter. */
function threadsCpu(): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const entry of Deno.readDirSync("/proc/self/task")) {
      const stat = Deno.readTextFileSync(`/proc/self/task/${entry.name}/stat`);
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const kind = entry.name === String(Deno.pid)
        ? "js"
        : comm.startsWith("sw-")
        ? "kv"
        : comm.startsWith("V8 ")
        ? "gc"
        : comm === "deno" // Deno names the OpenTelemetry thread after the process; no other is busy here
        ? "otel"
        : "other";
      const fields = stat.slice(close + 2).split(" ");
      out[kind] = (out[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
    }
  } catch {
    // Not Linux, or a thread ended meanwhile: no split.
  }
  return out;
}

const { modes, handlers, close } = await setUp();
const batches = new Map<string, number[]>();
const threads = new Map<string, Record<string, number>>();
try {
  for (let batch = 0; batch < BATCHES + 2; batch++) {
    for (const atOnce of [1, 16]) {
      const order: Mode[] = batch % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) {
        const { handle, requests } = handlers.get(mode)!;
        use(mode);
        const batchOf = await requests(PER_BATCH);
        const threadsBefore = threadsCpu();
        const start = process.cpuUsage();
        for (let i = 0; i < batchOf.length; i += atOnce) {
          await Promise.all(batchOf.slice(i, i + atOnce).map(async (r) => await (await handle(r)).body?.cancel()));
        }
        const used = process.cpuUsage(start);
        const threadsAfter = threadsCpu();
        if (batch < 2) continue; // warm-up
        const key = `${mode} · ${atOnce === 1 ? "one at a time" : "16 at once"}`;
        batches.set(key, [...(batches.get(key) ?? []), (used.user + used.system) / PER_BATCH]);
        const sums = threads.get(key) ?? {};
        for (const [kind, ms] of Object.entries(threadsAfter)) {
          sums[kind] = (sums[kind] ?? 0) + (ms - (threadsBefore[kind] ?? 0)) * 1000 / (PER_BATCH * BATCHES);
        }
        threads.set(key, sums);
      }
    }
  }
} finally {
  close();
}
console.log(JSON.stringify({ batches: Object.fromEntries(batches), threads: Object.fromEntries(threads) }));
