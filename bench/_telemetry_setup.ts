// What bench/telemetry_bench.ts and bench/_telemetry_cpu.ts share: the ways
// of running the receiver's write handle (before, off, on, and before-on),
// each over its own KV with one community and one hook, and fresh signed
// requests. "before" is the package at another commit with OpenTelemetry
// taken as absent (it has no telemetry, or its own resetTelemetry(true));
// "before-on" is that package recording, when it has telemetry of its own.

import assert from "node:assert/strict";
import * as current from "../webhooks/mod.ts";
import { resetTelemetry, telemetryOff } from "../webhooks/telemetry/mod.ts";

type Package = Pick<typeof current, "createWebhooks" | "createReceiver" | "signJiveExtn">;
export type Mode = "before" | "off" | "on" | "before-on";
export type Handle = (request: Request) => Promise<Response>;

const SECRET = btoa("the bench community's client secret");
const SIGN = { clientId: "client-bench", jiveUrl: "https://bench.example", tenantId: "tenant-bench" };
const REF = "https://bench.example/api/core/v3/webhooks/1";
const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "A bench postback" } }]);

const beforePath = Deno.env.get("TELEMETRY_BENCH_BEFORE");
const otelOn = Deno.env.get("OTEL_DENO") === "true";
/** The before package's own telemetry switch, when it has one (a commit after issue 42). */
const beforeTelemetry: { resetTelemetry(off?: boolean): void } | null = beforePath
  ? await import(new URL("telemetry/mod.ts", new URL(beforePath, "file:///")).href).catch(() => null)
  : null;
const onFile = Deno.env.get("BENCH_KV") === "file";

let last = Date.now() - 4 * 60_000;
const timestamp = () => (last = Math.max(last + 1, Date.now() - 4 * 60_000));

/** OpenTelemetry as a mode needs it; switched only when the mode changes (a switch on makes the instruments again). */
let inUse: Mode | undefined;
export function use(mode: Mode): void {
  if (mode === inUse) return;
  inUse = mode;
  resetTelemetry(mode !== "on");
  beforeTelemetry?.resetTelemetry(mode !== "before-on");
  assert.equal(telemetryOff(), mode !== "on");
}

/**
 * The modes this process can run: `before` with TELEMETRY_BENCH_BEFORE, `on`
 * with OTEL_DENO=true, `before-on` with both when the before package has
 * telemetry.
 */
export async function setUp(): Promise<{
  modes: Mode[];
  handlers: Map<Mode, { handle: Handle; requests(n: number): Promise<Request[]> }>;
  close(): void;
}> {
  const before: Package | null = beforePath ? await import(new URL(beforePath, "file:///").href) : null;
  // In this order, and reversed every other round or batch: each "off" mode follows its "on" mode as often as the
  // other's (the exporter thread still busy with what "on" handed it slows what comes next).
  const modes: Mode[] = [
    ...(otelOn ? ["on" as const] : []),
    "off",
    ...(before ? ["before" as const] : []),
    ...(otelOn && beforeTelemetry ? ["before-on" as const] : []),
  ];
  const opened: (() => void)[] = [];
  const handlers = new Map<Mode, { handle: Handle; requests(n: number): Promise<Request[]> }>();
  for (const mode of modes) {
    const pkg = mode === "before" || mode === "before-on" ? before! : current;
    use(mode);
    const dir = onFile ? await Deno.makeTempDir({ prefix: "telemetry_bench_" }) : null;
    const kv = await Deno.openKv(dir ? `${dir}/kv.sqlite3` : ":memory:");
    opened.push(() => (kv.close(), dir && Deno.removeSync(dir, { recursive: true })));
    const hooks = pkg.createWebhooks(kv);
    await hooks.communities.save({ name: "Bench", ...SIGN, baseUrl: SIGN.jiveUrl, clientSecret: SECRET });
    await hooks.save({ id: "hook-bench", tenantId: SIGN.tenantId, entity: { resources: { self: { ref: REF } } } });
    const { handle } = pkg.createReceiver(hooks, {
      write: ({ activity, postbackId, index }, atomic) => void atomic.set(["inbox", postbackId, index], activity),
    });
    const requests = (n: number) =>
      Promise.all(Array.from({ length: n }, async () => {
        const authorization = await pkg.signJiveExtn({ ...SIGN, timestamp: timestamp() }, SECRET);
        return new Request("http://127.0.0.1/hooks", { method: "POST", headers: { authorization }, body: BODY });
      }));
    const [first] = await requests(1);
    assert.deepEqual(await (await handle(first)).json(), { received: 1 });
    handlers.set(mode, { handle, requests });
  }
  return { modes, handlers, close: () => opened.forEach((close) => close()) };
}
