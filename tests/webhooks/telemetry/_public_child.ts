// Run by public_export_test.ts with OTEL_DENO=true: serves a receiver made
// with the public createReceiver (write mode) and posts to it an accepted
// postback of two items and a 405, 413, 400, 404 and 401, then waits for a
// metric export and exits. It prints nothing: Deno exports console output
// as log records, which the test reads for secrets.

import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";
import { item, NOW, REF_B, seed, signA } from "../_receiver.ts";

const kv = await Deno.openKv(":memory:");
const hooks = createWebhooks(kv);
await seed(hooks);
const receiver = createReceiver(hooks, {
  write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], p.activity),
  now: () => NOW,
  maxBytes: 1_024,
});
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, receiver.handle);
const url = `http://127.0.0.1:${server.addr.port}/hooks`;
const send = async (init: RequestInit) => void await (await fetch(url, init)).body?.cancel();

const authorization = await signA();
await send({ method: "POST", headers: { authorization }, body: JSON.stringify([item(), item()]) });
await send({ method: "GET" });
await send({ method: "POST", headers: { authorization: await signA(NOW - 1) }, body: "x".repeat(2_048) });
await send({ method: "POST", headers: { authorization: await signA(NOW - 2) }, body: '{"not":"an array"}' });
await send({ method: "POST", headers: { authorization: await signA(NOW - 3) }, body: JSON.stringify([item(REF_B)]) });
await send({ method: "POST", body: JSON.stringify([item()]) });

await server.shutdown();
// Two metric exports at the test's 200 ms.
await new Promise((resolve) => setTimeout(resolve, 600));
kv.close();
