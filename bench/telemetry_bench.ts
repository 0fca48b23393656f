// What the receiver's telemetry costs (issue 42): createReceiver({ write
// }).handle with a fresh signed one-item postback per call, directly, one at
// a time and 16 at once, on `:memory:` (BENCH_KV=file: a KV file, where a
// commit's fsync of some ms hides what telemetry costs), in one process:
// - before: the package at another commit, imported from
//   TELEMETRY_BENCH_BEFORE (that commit's webhooks/mod.ts; rows left out
//   without it), with OpenTelemetry taken as absent;
// - before-on: that package recording, when it has telemetry of its own (a
//   commit after issue 42; needs OTEL_DENO=true);
// - off: this package with OpenTelemetry taken as absent
//   (resetTelemetry(true)), as in a process without OTEL_DENO;
// - on: this package recording through Deno's OpenTelemetry (needs
//   OTEL_DENO=true; rows left out without it), exporting to the OTLP/HTTP
//   receiver that scripts/bench_telemetry.ts starts.
// Targets: on at most 1.10x off; off at most 1.02x before.
//
//   deno run -A scripts/bench_telemetry.ts [--before REF]

import { setUp, use } from "./_telemetry_setup.ts";

const AT_ONCE = 16;
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? "2");
const RUNS = { n: Math.ceil(1500 / rounds), warmup: 20 };
const RUNS_AT_ONCE = { n: Math.ceil(300 / rounds), warmup: 5 };

const { modes, handlers, close } = await setUp();
globalThis.addEventListener("unload", close);

for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? modes : [...modes].reverse();
  for (const atOnce of [1, AT_ONCE]) {
    for (const mode of order) {
      const { handle, requests } = handlers.get(mode)!;
      Deno.bench({
        name: `write handle · ${mode} · ${atOnce === 1 ? "one at a time" : `${AT_ONCE} at once`}`,
        group: `telemetry · ${atOnce === 1 ? "one" : AT_ONCE} · round ${round}`,
        baseline: mode === "off",
        ...(atOnce === 1 ? RUNS : RUNS_AT_ONCE),
        async fn(b) {
          use(mode);
          const batch = await requests(atOnce);
          b.start();
          await Promise.all(batch.map(async (request) => await (await handle(request)).body?.cancel()));
          b.end();
        },
      });
    }
  }
}
