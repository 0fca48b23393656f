// The CPU time (user + system, every thread of the process: the exporter's
// too) that the receiver's write handle takes per postback, before, off and
// on, in short interleaved batches; what a machine shared with other work
// disturbs less than wall time. Run by scripts/bench_telemetry.ts; prints
// one JSON object: per mode and shape, the CPU µs per postback of each batch,
// in order (batch i of every mode ran side by side).

import process from "node:process";
import { type Mode, setUp, use } from "./_telemetry_setup.ts";

const BATCHES = Number(Deno.env.get("BENCH_CPU_BATCHES") ?? "20");
const PER_BATCH = 160;

const { modes, handlers, close } = await setUp();
const samples = new Map<string, number[]>();
try {
  for (let batch = 0; batch < BATCHES + 2; batch++) {
    for (const atOnce of [1, 16]) {
      const order: Mode[] = batch % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) {
        const { handle, requests } = handlers.get(mode)!;
        use(mode);
        const batchOf = await requests(PER_BATCH);
        const start = process.cpuUsage();
        for (let i = 0; i < batchOf.length; i += atOnce) {
          await Promise.all(batchOf.slice(i, i + atOnce).map(async (r) => await (await handle(r)).body?.cancel()));
        }
        const used = process.cpuUsage(start);
        if (batch < 2) continue; // warm-up
        const key = `${mode} · ${atOnce === 1 ? "one at a time" : "16 at once"}`;
        samples.set(key, [...(samples.get(key) ?? []), (used.user + used.system) / PER_BATCH]);
      }
    }
  }
} finally {
  close();
}
console.log(JSON.stringify(Object.fromEntries(samples)));
