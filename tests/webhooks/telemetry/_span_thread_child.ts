// Run by span_thread_test.ts with OTEL_DENO=true: a `write` receiver behind
// Deno.serve answers Deno.args[1] signed postbacks, 16 at a time, then the
// process ends at once as Deno.args[0] says: "exit" (the waiting records
// handed to the span thread, then Deno.exit(0) before it can have made them)
// or "end" (nothing left to do). Its spans are made on the span thread, or
// were still waiting for it.

import { createReceiver, createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";
import { handOver } from "../../../webhooks/telemetry/mod.ts";

const [how, count] = [Deno.args[0], Number(Deno.args[1])];
const kv = await Deno.openKv(":memory:");
const hooks = createWebhooks(kv);
const secret = btoa("span thread test secret");
const SIGN = { clientId: "c", jiveUrl: "https://a.example", tenantId: "tenant-thread" };
await hooks.communities.save({ name: "A", ...SIGN, baseUrl: SIGN.jiveUrl, clientSecret: secret });
const ref = "https://a.example/api/core/v3/webhooks/1";
await hooks.save({ id: "h", tenantId: SIGN.tenantId, entity: { resources: { self: { ref } } } });
const receiver = createReceiver(hooks, { write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], 1) });
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, receiver.handle);

let timestamp = Date.now() - 60_000;
const statuses = new Map<number, number>();
for (let sent = 0; sent < count; sent += 16) {
  await Promise.all(Array.from({ length: Math.min(16, count - sent) }, async () => {
    const authorization = await signJiveExtn({ ...SIGN, timestamp: timestamp++ }, secret);
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/hooks`, {
      method: "POST",
      headers: { authorization },
      body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]),
    });
    await res.body?.cancel();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }));
}
console.log(JSON.stringify(Object.fromEntries(statuses)));
if (how === "exit") {
  handOver();
  Deno.exit(0);
}
await server.shutdown();
kv.close();
