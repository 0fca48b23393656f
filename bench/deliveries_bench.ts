// The console's receiver (POST /hooks/{id}: createReceiver writing the
// delivery in the claim's commit) with 500 and with 50,000 deliveries already
// stored (as the receiver stores them), each at its retention limit, so that
// postbacks also trim the oldest (in the background, a batch at a time): the
// case that used to list the whole history. Issue 15's target: the two cost within 1.2x of each other, so
// a receiver does not slow down as its history grows. Each iteration sends a
// fresh signed one-item postback (signed outside the measured part) to the
// console's handler, on a KV file (what the console runs on) and `:memory:`.
//
//   deno bench -A bench/deliveries_bench.ts
//   BENCH_KV=memory deno bench -A bench/deliveries_bench.ts

import assert from "node:assert/strict";
import { createApp } from "../console/app.ts";
import { signJiveExtn } from "../webhooks/mod.ts";

const backends = (Deno.env.get("BENCH_KV") ?? "file,memory").split(",").map((b) => b.trim());
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? "1");
const HISTORIES = [500, 50_000];
const PUBLIC = "http://127.0.0.1:8000";
const TENANT = "sandbox-tenant";
const REF = `${PUBLIC}/sandbox/api/core/v3/webhooks/bench`;
const RUNS = { n: 400, warmup: 40 };

/** Fresh timestamps, one per request, all inside the signature window. */
let lastStamp = Date.now() - 4 * 60_000;
const nextStamp = () => (lastStamp = Math.max(lastStamp + 1, Date.now() - 4 * 60_000));

interface Console {
  handle(request: Request): Promise<Response>;
  sign(): Promise<string>;
  close(): Promise<void>;
}

async function start(backend: string, history: number): Promise<Console> {
  const dir = backend === "file" ? await Deno.makeTempDir({ prefix: "deliveries_bench_" }) : null;
  const kv = await Deno.openKv(dir ? `${dir}/kv.sqlite3` : ":memory:");
  const app = createApp({
    kv,
    publicUrl: PUBLIC,
    buildAssets: false,
    preconnectSandbox: false,
    deliveries: { retain: history },
  });
  await app.ready;
  await app.webhooks.save({ id: "bench", tenantId: TENANT, entity: { resources: { self: { ref: REF } } } });
  // The history as the receiver stores it (its rows, numbered by its `write`): what a console that has run a
  // while holds, and what its trimming deletes, a batch at a time, as postbacks arrive.
  const hook = (await app.webhooks.findByID("bench"))!;
  const community = (await app.webhooks.communities.findByTenantID(TENANT))!;
  const receivedAt = Date.now();
  await app.deliveries.ready();
  for (let first = 1; first <= history; first += 200) {
    const op = kv.atomic();
    const last = Math.min(history, first + 199);
    for (let seq = first; seq <= last; seq++) {
      const postbackId = `history-${seq}`.padEnd(64, "0");
      const postback = Object.assign(
        { activity: { verb: "jive:created", title: `History ${seq}` }, webhook: hook, community, receivedAt },
        { postbackId, index: 0, count: 1 },
      ) as unknown as Parameters<typeof app.deliveries.write>[0];
      app.deliveries.write(postback, op);
    }
    assert.ok((await op.commit()).ok);
  }
  // Counted by no shard: the trimmer counts the log itself when it takes its lease.
  return {
    handle: (request) => Promise.resolve(app.fetch(request)),
    sign: () =>
      signJiveExtn(
        { clientId: community.clientId!, jiveUrl: `${PUBLIC}/sandbox`, tenantId: TENANT, timestamp: nextStamp() },
        community.clientSecret!,
      ),
    async close() {
      await app.close();
      kv.close();
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "A bench postback" } }]);
const request = (authorization: string) =>
  new Request(`${PUBLIC}/hooks/bench`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: BODY,
  });

const opened: Console[] = [];
globalThis.addEventListener("unload", () => opened.forEach((c) => void c.close()));

for (const backend of backends) {
  const consoles = new Map<number, Console>();
  for (const history of HISTORIES) {
    const c = await start(backend, history);
    opened.push(c);
    consoles.set(history, c);
    const res = await c.handle(request(await c.sign()));
    assert.deepEqual(await res.json(), { received: 1 });
  }
  for (let round = 1; round <= rounds; round++) {
    for (const history of HISTORIES) {
      const c = consoles.get(history)!;
      Deno.bench({
        name: `${history.toLocaleString("en-US")} deliveries stored`,
        group: `console receiver by history · ${backend}${rounds > 1 ? ` · round ${round}` : ""}`,
        baseline: history === HISTORIES[0],
        ...RUNS,
        async fn(b) {
          const req = request(await c.sign());
          b.start();
          const res = await c.handle(req);
          await res.body?.cancel();
          b.end();
        },
      });
    }
  }
}
