// createReceiver's handle() against a bare handler that does only what any
// safe receiver must: the HMAC check of the JiveEXTN header and one KV atomic
// commit (a replay claim). Issue 10's target: handle costs at most 1.5x the
// bare handler. Both are called with a fresh signed one-item postback per
// iteration (signing happens outside the measured part), on `:memory:` and on
// a KV file, directly and through Deno.serve on 127.0.0.1.
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
const RUNS = { n: 1500, warmup: 150 };

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

async function setup(backend: string): Promise<{ kv: Deno.Kv; receiver: Handler; bare: Handler; close(): void }> {
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
  return {
    kv,
    receiver: handle,
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

for (const backend of backends) {
  const env = await setup(backend);
  opened.push(env);
  // Both answer a fresh postback as received.
  for (const handler of [env.receiver, env.bare]) {
    const res = await handler(await signedRequest("http://127.0.0.1/hooks"));
    assert.deepEqual(await res.json(), { received: 1 });
  }
  for (
    const [name, handler] of [["bare: HMAC + one KV commit", env.bare], [
      "createReceiver().handle",
      env.receiver,
    ]] as const
  ) {
    Deno.bench({
      name: `${name} · direct · ${backend}`,
      group: `receiver · direct · ${backend}`,
      baseline: name.startsWith("bare"),
      ...RUNS,
      async fn(b) {
        const request = await signedRequest("http://127.0.0.1/hooks");
        b.start();
        const res = await handler(request);
        await res.body?.cancel();
        b.end();
      },
    });
  }
  for (
    const [name, handler] of [["bare: HMAC + one KV commit", env.bare], [
      "createReceiver().handle",
      env.receiver,
    ]] as const
  ) {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
    opened.push({ close: () => void server.shutdown() });
    const url = `http://127.0.0.1:${server.addr.port}/hooks`;
    Deno.bench({
      name: `${name} · Deno.serve · ${backend}`,
      group: `receiver · Deno.serve · ${backend}`,
      baseline: name.startsWith("bare"),
      ...RUNS,
      async fn(b) {
        const request = await signedRequest(url);
        b.start();
        const res = await fetch(request);
        await res.body?.cancel();
        b.end();
      },
    });
  }
}
