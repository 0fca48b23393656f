// createReceiver's handle() against a bare handler that does only what any
// safe receiver must: the HMAC check of the JiveEXTN header and one KV atomic
// commit (a replay claim). Issue 10's target: handle costs at most 1.5x the
// bare handler; with `write` (the claim and the item in one commit, shared by
// postbacks ready at the same time), issue 23's target is 1.0x, 16 at once
// through Deno.serve. All are called with a fresh signed one-item postback per
// iteration (signing happens outside the measured part), on `:memory:` and on
// a KV file, directly and through Deno.serve on 127.0.0.1, one at a time and
// 16 at once. BENCH_ROUNDS (default 1) splits each comparison in rounds.
//
//   deno bench -A bench/receiver_bench.ts
//   BENCH_KV=memory deno bench -A bench/receiver_bench.ts

import assert from "node:assert/strict";
import { createReceiver, createWebhooks, signJiveExtn, verifyJiveExtn } from "../webhooks/mod.ts";

const backends = (Deno.env.get("BENCH_KV") ?? "memory,file").split(",").map((b) => b.trim());
const SECRET = btoa("the bench community's client secret");
const SIGN = { clientId: "client-bench", jiveUrl: "https://bench.example", tenantId: "tenant-bench" };
const REF = "https://bench.example/api/core/v3/webhooks/1";
const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created", title: "A bench postback" } }]);
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? "1");
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`BENCH_ROUNDS: bad count ${rounds}`);
const RUNS = { n: Math.ceil(1500 / rounds), warmup: 50 };
const RUNS_AT_ONCE = { n: Math.ceil(400 / rounds), warmup: 10 };

type Handler = (request: Request) => Promise<Response>;

/** The bare handler: verify the header's HMAC, claim it with one atomic commit, answer. */
function bareHandler(kv: Deno.Kv): Handler {
  return async (request) => {
    const verified = await verifyJiveExtn(request.headers.get("authorization"), SECRET);
    if (!verified.ok) return new Response(null, { status: 401 });
    const key = ["bench_seen", verified.timestamp];
    const result = await kv.atomic().check({ key, versionstamp: null }).set(key, true, { expireIn: 360_000 }).commit();
    return Response.json(result.ok ? { received: 1 } : { received: 0, duplicate: true });
  };
}

/** Fresh timestamps, one per request, all inside the signature window. */
function timestamps(): () => number {
  let last = Date.now() - 4 * 60_000;
  return () => (last = Math.max(last + 1, Date.now() - 4 * 60_000));
}

async function setup(
  backend: string,
): Promise<{ kv: Deno.Kv; receiver: Handler; writer: Handler; bare: Handler; close(): void }> {
  const dir = backend === "file" ? await Deno.makeTempDir({ prefix: "receiver_bench_" }) : null;
  const kv = await Deno.openKv(dir ? `${dir}/kv.sqlite3` : ":memory:");
  const hooks = createWebhooks(kv);
  await hooks.communities.save({
    name: "Bench",
    tenantId: SIGN.tenantId,
    baseUrl: SIGN.jiveUrl,
    clientId: SIGN.clientId,
    clientSecret: SECRET,
  });
  await hooks.save({ id: "hook-bench", tenantId: SIGN.tenantId, entity: { resources: { self: { ref: REF } } } });
  let delivered = 0;
  const { handle } = createReceiver(hooks, { onPostback: () => void delivered++ });
  const writer = createReceiver(hooks, {
    write: ({ activity, postbackId, index }, atomic) => void atomic.set(["inbox", postbackId, index], activity),
  });
  return {
    kv,
    receiver: handle,
    writer: writer.handle,
    bare: bareHandler(kv),
    close() {
      kv.close();
      if (dir) Deno.removeSync(dir, { recursive: true });
    },
  };
}

const opened: { close(): void }[] = [];
globalThis.addEventListener("unload", () => opened.forEach((o) => o.close()));
const next = timestamps();

async function signedRequest(url: string): Promise<Request> {
  const authorization = await signJiveExtn({ ...SIGN, timestamp: next() }, SECRET);
  return new Request(url, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: BODY,
  });
}

/** Requests per iteration of the "16 at once" rows: sent together, as a platform under load would. */
const AT_ONCE = 16;

/** The measured part of one iteration of a path: `send` is given fresh signed requests. */
type Which = "receiver" | "writer" | "bare";

function paths(env: Record<Which, Handler>, urls: Record<Which, string>) {
  return {
    direct: (which: Which) => async (b: Deno.BenchContext) => {
      const request = await signedRequest("http://127.0.0.1/hooks");
      b.start();
      const res = await env[which](request);
      await res.body?.cancel();
      b.end();
    },
    "Deno.serve": (which: Which) => async (b: Deno.BenchContext) => {
      const request = await signedRequest(urls[which]);
      b.start();
      const res = await fetch(request);
      await res.body?.cancel();
      b.end();
    },
    "16 at once": (which: Which) => async (b: Deno.BenchContext) => {
      const requests = await Promise.all(Array.from({ length: AT_ONCE }, () => signedRequest(urls[which])));
      b.start();
      await Promise.all(requests.map(async (request) => await (await fetch(request)).body?.cancel()));
      b.end();
    },
  };
}

const NAMES = {
  bare: "bare: HMAC + one KV commit",
  receiver: "createReceiver().handle",
  writer: "createReceiver({ write }).handle",
} as const;

for (const backend of backends) {
  const env = await setup(backend);
  opened.push(env);
  // Both answer a fresh postback as received.
  for (const handler of [env.receiver, env.writer, env.bare]) {
    const res = await handler(await signedRequest("http://127.0.0.1/hooks"));
    assert.deepEqual(await res.json(), { received: 1 });
  }
  const urls = { receiver: "", writer: "", bare: "" };
  for (const which of ["receiver", "writer", "bare"] as const) {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, env[which]);
    opened.push({ close: () => void server.shutdown() });
    urls[which] = `http://127.0.0.1:${server.addr.port}/hooks`;
  }
  const measured = paths(env, urls);
  // Rounds, the two rows back to back in each, in turns first, so that a slow spell of the disk or the
  // machine weighs on one round's ratio, not on the median.
  for (let round = 1; round <= rounds; round++) {
    for (const [path, fn] of Object.entries(measured)) {
      const order = round % 2 === 1
        ? (["bare", "receiver", "writer"] as const)
        : (["writer", "receiver", "bare"] as const);
      for (const which of order) {
        Deno.bench({
          name: `${NAMES[which]} · ${path} · ${backend}`,
          group: `receiver · ${path} · ${backend}${rounds > 1 ? ` · round ${round}` : ""}`,
          baseline: which === "bare",
          ...(path === "16 at once" ? RUNS_AT_ONCE : RUNS),
          fn: fn(which),
        });
      }
    }
  }
}
