// What the receiver's telemetry costs (issue 42): createReceiver({ write
// }).handle with a fresh signed one-item postback per call, directly, one at
// a time and 16 at once, on `:memory:` (BENCH_KV=file: a KV file, where a
// commit's fsync of some ms hides what telemetry costs), three ways in one
// process:
// - before: the package as it was before telemetry, imported from
//   TELEMETRY_BENCH_BEFORE (that commit's webhooks/mod.ts; rows left out
//   without it);
// - off: this package with OpenTelemetry taken as absent
//   (resetTelemetry(true)), as in a process without OTEL_DENO;
// - on: this package recording through Deno's OpenTelemetry (needs
//   OTEL_DENO=true; rows left out without it), exporting to the OTLP/HTTP
//   receiver that scripts/bench_telemetry.ts starts.
// Targets: on at most 1.10x off; off at most 1.02x before.
//
//   deno run -A scripts/bench_telemetry.ts [--before REF]

import assert from "node:assert/strict";
import * as current from "../webhooks/mod.ts";
import { resetTelemetry, telemetryOff } from "../webhooks/telemetry/mod.ts";

type Package = Pick<typeof current, "createWebhooks" | "createReceiver" | "signJiveExtn">;
type Mode = "before" | "off" | "on";

const SECRET = btoa("the bench community's client secret");
const SIGN = { clientId: "client-bench", jiveUrl: "https://bench.example", tenantId: "tenant-bench" };
const REF = "https://bench.example/api/core/v3/webhooks/1";
const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "A bench postback" } }]);
const AT_ONCE = 16;
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? "2");
const RUNS = { n: Math.ceil(1500 / rounds), warmup: 50 };
const RUNS_AT_ONCE = { n: Math.ceil(300 / rounds), warmup: 10 };

const beforePath = Deno.env.get("TELEMETRY_BENCH_BEFORE");
const before: Package | null = beforePath ? await import(new URL(beforePath, "file:///").href) : null;
const otelOn = Deno.env.get("OTEL_DENO") === "true";

const opened: { close(): void }[] = [];
globalThis.addEventListener("unload", () => opened.forEach((o) => o.close()));

let last = Date.now() - 4 * 60_000;
const timestamp = () => (last = Math.max(last + 1, Date.now() - 4 * 60_000));

const onFile = Deno.env.get("BENCH_KV") === "file";

async function receiverOf(pkg: Package): Promise<(request: Request) => Promise<Response>> {
  const dir = onFile ? await Deno.makeTempDir({ prefix: "telemetry_bench_" }) : null;
  const kv = await Deno.openKv(dir ? `${dir}/kv.sqlite3` : ":memory:");
  opened.push({ close: () => (kv.close(), dir && Deno.removeSync(dir, { recursive: true })) });
  const hooks = pkg.createWebhooks(kv);
  await hooks.communities.save({ name: "Bench", ...SIGN, baseUrl: SIGN.jiveUrl, clientSecret: SECRET });
  await hooks.save({ id: "hook-bench", tenantId: SIGN.tenantId, entity: { resources: { self: { ref: REF } } } });
  return pkg.createReceiver(hooks, {
    write: ({ activity, postbackId, index }, atomic) => void atomic.set(["inbox", postbackId, index], activity),
  }).handle;
}

async function signed(pkg: Package): Promise<Request> {
  const authorization = await pkg.signJiveExtn({ ...SIGN, timestamp: timestamp() }, SECRET);
  return new Request("http://127.0.0.1/hooks", { method: "POST", headers: { authorization }, body: BODY });
}

/** OpenTelemetry as the row needs it; switched only when the mode changes (a switch on makes the instruments again). */
let current_mode: Mode | undefined;
function use(mode: Mode): void {
  if (mode === current_mode) return;
  current_mode = mode;
  resetTelemetry(mode !== "on");
  assert.equal(telemetryOff(), mode !== "on");
}

const modes: Mode[] = [...(before ? ["before" as const] : []), "off", ...(otelOn ? ["on" as const] : [])];
const handlers = new Map<Mode, { pkg: Package; handle: (request: Request) => Promise<Response> }>();
for (const mode of modes) {
  const pkg = mode === "before" ? before! : current;
  use(mode);
  const handle = await receiverOf(pkg);
  assert.deepEqual(await (await handle(await signed(pkg))).json(), { received: 1 });
  handlers.set(mode, { pkg, handle });
}

for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? modes : [...modes].reverse();
  for (const atOnce of [1, AT_ONCE]) {
    for (const mode of order) {
      const { pkg, handle } = handlers.get(mode)!;
      Deno.bench({
        name: `write handle · ${mode} · ${atOnce === 1 ? "one at a time" : `${AT_ONCE} at once`}`,
        group: `telemetry · ${atOnce === 1 ? "one" : AT_ONCE} · round ${round}`,
        baseline: mode === "off",
        ...(atOnce === 1 ? RUNS : RUNS_AT_ONCE),
        async fn(b) {
          use(mode);
          const requests = await Promise.all(Array.from({ length: atOnce }, () => signed(pkg)));
          b.start();
          await Promise.all(requests.map(async (request) => await (await handle(request)).body?.cancel()));
          b.end();
        },
      });
    }
  }
}
