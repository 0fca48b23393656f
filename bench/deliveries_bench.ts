// The console's receiver (POST /hooks/{id}: createReceiver writing the
// delivery in the claim's commit) with 500 and with 50,000 deliveries already
// stored, each at its retention limit, so that postbacks also trim the
// oldest (in the background, a batch at a time): the case that used to list
// the whole history. Issue 15's target: the two cost within 1.2x of each
// other, so a receiver does not slow down as its history grows, from the
// first round. Each log is what a console that ran a while leaves (its rows
// as the receiver stores them, packed by the hook index, counted by the
// trimmer when it closed), and a fresh console is started over it, as a
// restart does. Each iteration sends a fresh signed one-item postback (signed
// outside the measured part) to the console's handler, on a KV file (what the
// console runs on) and `:memory:`.
//
//   deno bench -A bench/deliveries_bench.ts
//   BENCH_KV=memory BENCH_ROUNDS=3 deno bench -A bench/deliveries_bench.ts

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

const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "A bench postback" } }]);
const request = (authorization: string) =>
  new Request(`${PUBLIC}/hooks/bench`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: BODY,
  });

type App = ReturnType<typeof createApp>;

/** Signs a postback of the bench's community, as the platform does. */
async function signer(app: App): Promise<() => Promise<string>> {
  const community = (await app.webhooks.communities.findByTenantID(TENANT))!;
  return () =>
    signJiveExtn(
      { clientId: community.clientId!, jiveUrl: `${PUBLIC}/sandbox`, tenantId: TENANT, timestamp: nextStamp() },
      community.clientSecret!,
    );
}

/** Sends one postback and checks that it was received. */
async function postOne(app: App, sign: () => Promise<string>): Promise<void> {
  const res = await app.fetch(request(await sign()));
  assert.deepEqual(await res.json(), { received: 1 });
}

/**
 * A log of `history` rows as a console that ran a while leaves it: stored as
 * its receiver stores them (numbered by its `write`, counted by the written
 * shards), packed by the hook index (its passes run every few hundred rows;
 * a settle window of 0 packs them at once), and counted by its trimmer when
 * it closes.
 */
async function seed(kv: Deno.Kv, history: number): Promise<void> {
  const app = createApp({ ...consoleOptions(kv), deliveries: { retain: history, settleMs: 0 } });
  await app.ready;
  await app.webhooks.save({ id: "bench", tenantId: TENANT, entity: { resources: { self: { ref: REF } } } });
  const hook = (await app.webhooks.findByID("bench"))!;
  const community = (await app.webhooks.communities.findByTenantID(TENANT))!;
  const receivedAt = Date.now();
  await app.deliveries.ready();
  for (let first = 1; first < history; first += 200) {
    const op = kv.atomic();
    const last = Math.min(history - 1, first + 199);
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
  await postOne(app, await signer(app)); // the last, through its receiver: it trims when it closes
  await app.deliveries.index();
  await app.close();
  // Its trimming lease runs out 30 s after it stopped: the bench does not wait for that.
  await kv.delete(["console_delivery_trim_lease"]);
}

function consoleOptions(kv: Deno.Kv) {
  return { kv, publicUrl: PUBLIC, buildAssets: false, preconnectSandbox: false };
}

async function start(backend: string, history: number): Promise<Console> {
  const dir = backend === "file" ? await Deno.makeTempDir({ prefix: "deliveries_bench_" }) : null;
  const kv = await Deno.openKv(dir ? `${dir}/kv.sqlite3` : ":memory:");
  await seed(kv, history);
  // A console started over that log, as a restart does.
  const app = createApp({ ...consoleOptions(kv), deliveries: { retain: history } });
  await app.ready;
  const sign = await signer(app);
  return {
    handle: (request) => Promise.resolve(app.fetch(request)),
    sign,
    async close() {
      await app.close();
      kv.close();
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

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
