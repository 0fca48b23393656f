// The relay against what it must at least do (issue 45's targets):
//
// - Delivery: one relay worker (concurrency 16) delivering a batch of
//   entries to a local app that answers 200, against a bare fetch loop of
//   the same concurrency POSTing the same number of bodies (target: the
//   relay at least 0.8x the loop's throughput), and a second bare loop that
//   sends the relay's own request (the three Standard Webhooks headers and a
//   body of the same size, signed once ahead): what any sender of these
//   requests pays before bookkeeping (no target). The relay's turn includes
//   starting the worker, signing each request, the lease commits and the
//   commits that record each delivery; the entries are written before it.
// - Receiving: createReceiver({ write }) storing each item, with and without
//   relay.write adding its outbox entry to the same commit (one destination;
//   target at least 0.9x), 16 signed postbacks at once through Deno.serve.
//
// Both on `:memory:` (BENCH_KV=file for a KV file, BENCH_KV=kvconnect for
// the project's KV Connect server, BENCH_LATENCY=MS its added latency: a KV
// far away). BENCH_ROUNDS splits each comparison in rounds.
//
//   deno bench -A bench/relay_bench.ts
//   BENCH_KV=kvconnect BENCH_LATENCY=20 deno bench -A bench/relay_bench.ts

import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createReceiver, createRelay, createWebhooks, type Postback, signJiveExtn } from "../webhooks/mod.ts";
import { startKvConnectServer } from "../kvconnect/mod.ts";

const backend = Deno.env.get("BENCH_KV") ?? "memory";
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? "1");
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`BENCH_ROUNDS: bad count ${rounds}`);
const SECRET = btoa("the bench community's client secret");
const SIGN = { clientId: "client-bench", jiveUrl: "https://bench.example", tenantId: "tenant-bench" };
const REF = "https://bench.example/api/core/v3/webhooks/2"; // hook-recv: the receiving rows' hook
const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "A bench postback" } }]);
const BATCH = 200;
const CONCURRENCY = 16;

const dir = backend === "file" ? await Deno.makeTempDir({ prefix: "relay_bench_" }) : null;
const latencyMs = Number(Deno.env.get("BENCH_LATENCY") ?? "0");
const remote = backend === "kvconnect"
  ? await startKvConnectServer({ path: ":memory:", token: "relay-bench-token-0123456789", latencyMs })
  : null;
if (remote) Deno.env.set("DENO_KV_ACCESS_TOKEN", "relay-bench-token-0123456789");
const kv = await Deno.openKv(remote ? remote.url : dir ? `${dir}/kv.sqlite3` : ":memory:");
const hooks = createWebhooks(kv);
await hooks.communities.save({
  name: "Bench",
  tenantId: SIGN.tenantId,
  baseUrl: SIGN.jiveUrl,
  clientId: SIGN.clientId,
  clientSecret: SECRET,
});
const REF_BENCH = "https://bench.example/api/core/v3/webhooks/1";
await hooks.save({ id: "hook-bench", tenantId: SIGN.tenantId, entity: { resources: { self: { ref: REF_BENCH } } } });
await hooks.save({ id: "hook-recv", tenantId: SIGN.tenantId, entity: { resources: { self: { ref: REF } } } });

let received = 0;
/** How long the app takes to answer, ms: 0 (the hardest case for the relay), or 5 (a nearby app doing a little). */
let appDelayMs = 0;
const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  await request.arrayBuffer();
  received++;
  if (appDelayMs > 0) await new Promise((r) => setTimeout(r, appDelayMs));
  return new Response("ok");
});
const appUrl = `http://127.0.0.1:${app.addr.port}/hooks`;
const relay = createRelay(kv, { allowPrivateNetwork: true });
await relay.destinations.add({ url: appUrl, hookIds: ["hook-bench"] });
// The receiving rows' entries go to a pinned destination that no worker of this bench delivers: they do not
// pile onto the delivery rows.
await relay.destinations.add({ url: appUrl, hookIds: ["hook-recv"], pinned: true });

function postback(i: number): Postback {
  const p = {
    activity: { verb: "jive:created", title: "A bench postback" },
    webhook: { id: "hook-bench", tenantId: SIGN.tenantId, entity: {} },
    community: { name: "Bench", tenantId: SIGN.tenantId },
    receivedAt: Date.now(),
  };
  Object.defineProperties(p, { postbackId: { value: crypto.randomUUID() }, index: { value: i }, count: { value: 1 } });
  return p as unknown as Postback;
}

async function fill(): Promise<void> {
  for (let i = 0; i < BATCH; i += 10) {
    const atomic = kv.atomic();
    for (let j = i; j < i + 10; j++) relay.write(postback(j), atomic);
    assert.ok((await atomic.commit()).ok);
  }
}

async function relayTurn(b: Deno.BenchContext): Promise<void> {
  // Under steady traffic the relay's list of destinations is fresh; after an idle second the first write starts
  // a reload (and would leave its postback to be fanned out by a worker). Warm it as traffic would.
  relay.write(postback(0), kv.atomic());
  await new Promise((r) => setTimeout(r, 20));
  await fill();
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => finished = resolve);
  b.start();
  const worker = relay.run({
    concurrency: CONCURRENCY,
    onAttempt: (a) => {
      assert.equal(a.status, 200);
      if (++done === BATCH) finished();
    },
  });
  await all;
  b.end();
  await worker.stop();
}

const bareBody = JSON.stringify({ type: "jive:created", timestamp: new Date().toISOString(), data: { n: 1 } });
const bareHeaders = { "content-type": "application/json" };
// The relay's request, as one of its entries makes it (body of the same size, the same headers), signed once ahead.
const relayBody = JSON.stringify({
  type: "jive:created",
  timestamp: new Date().toISOString(),
  data: {
    webhook: "hook-bench",
    tenantId: SIGN.tenantId,
    postbackId: crypto.randomUUID(),
    index: 0,
    activity: postback(0).activity,
  },
});
const relayId = "msg_01JBENCH0000000000000000000";
const relayHeaders = {
  "content-type": "application/json",
  "webhook-id": relayId,
  "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
  "webhook-signature": new Webhook("whsec_" + btoa("the bench's secret of 32 bytes..")).sign(
    relayId,
    new Date(),
    relayBody,
  ),
  "user-agent": "community-webhooks-relay",
};
function bareTurn(headers: Record<string, string>, body: string) {
  return async (b: Deno.BenchContext): Promise<void> => {
    let next = 0;
    b.start();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < BATCH) {
        next++;
        const response = await fetch(appUrl, { method: "POST", headers, body });
        await response.arrayBuffer();
      }
    }));
    b.end();
  };
}

// Receiving: the same store, with and without the relay's entry in its commit.
const plain = createReceiver(hooks, {
  write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], p.activity),
});
const relayed = createReceiver(hooks, {
  write: (p, atomic) => {
    atomic.set(["inbox", p.postbackId, p.index], p.activity);
    relay.write(p, atomic);
  },
});
const servers = [plain, relayed].map((r) => Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, r.handle));
const [plainUrl, relayedUrl] = servers.map((s) => `http://127.0.0.1:${s.addr.port}/hooks`);
let last = Date.now() - 4 * 60_000;
async function signed(url: string): Promise<Request> {
  const timestamp = last = Math.max(last + 1, Date.now() - 4 * 60_000);
  const authorization = await signJiveExtn({ ...SIGN, timestamp }, SECRET);
  return new Request(url, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: BODY,
  });
}
function receiveTurn(url: string) {
  return async (b: Deno.BenchContext): Promise<void> => {
    const requests = await Promise.all(Array.from({ length: 16 }, () => signed(url)));
    b.start();
    const answers = await Promise.all(requests.map(async (r) => (await fetch(r)).status));
    b.end();
    assert.ok(answers.every((s) => s === 200));
  };
}

// The relay's turn delivers what its writes added; warm both paths once.
await relayTurn({ start() {}, end() {} } as unknown as Deno.BenchContext);
assert.equal(received, BATCH);

for (let round = 1; round <= rounds; round++) {
  const suffix = `${backend}${latencyMs ? ` +${latencyMs} ms` : ""}${rounds > 1 ? ` · round ${round}` : ""}`;
  // Turns first alternate between rounds, so that a slow spell of the machine weighs on one round's ratio.
  const delivery = [
    {
      name: `bare fetch loop, ${CONCURRENCY} at once · ${BATCH} POSTs`,
      baseline: true,
      fn: bareTurn(bareHeaders, bareBody),
    },
    {
      name: `bare fetch loop of the relay's request, ${CONCURRENCY} at once · ${BATCH} POSTs`,
      baseline: false,
      fn: bareTurn(relayHeaders, relayBody),
    },
    { name: `relay worker, concurrency ${CONCURRENCY} · ${BATCH} entries`, baseline: false, fn: relayTurn },
  ];
  const slowApp = (fn: (b: Deno.BenchContext) => Promise<void>) => async (b: Deno.BenchContext) => {
    appDelayMs = 5;
    try {
      await fn(b);
    } finally {
      appDelayMs = 0;
    }
  };
  const deliverySlow = delivery.map((row) => ({ ...row, fn: slowApp(row.fn) }));
  const receiving = [
    { name: "createReceiver({ write }) · 16 at once", baseline: true, fn: receiveTurn(plainUrl) },
    { name: "createReceiver({ write + relay.write }) · 16 at once", baseline: false, fn: receiveTurn(relayedUrl) },
  ];
  if (round % 2 === 0) [delivery, deliverySlow, receiving].forEach((rows) => rows.reverse());
  for (const row of delivery) Deno.bench({ ...row, group: `relay delivery · ${suffix}`, n: 20, warmup: 2 });
  for (const row of deliverySlow) {
    Deno.bench({ ...row, group: `relay delivery, app answering in 5 ms · ${suffix}`, n: 10, warmup: 1 });
  }
  for (const row of receiving) Deno.bench({ ...row, group: `relay receiving · ${suffix}`, n: 100, warmup: 10 });
}

globalThis.addEventListener("unload", () => {
  void relay.close();
  for (const s of [app, ...servers]) void s.shutdown();
  kv.close();
  void remote?.close();
  if (dir) Deno.removeSync(dir, { recursive: true });
});
