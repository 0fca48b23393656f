// Run by exit_test.ts with OTEL_DENO=true: answers one request through the
// receiver's telemetry, then ends at once, as Deno.args[0] says: "exit"
// (Deno.exit(0)) or "end" (nothing left to do). Its spans were still
// waiting to be handed to the exporter (_ended.ts): unload hands them over.

import {
  commitEnded,
  commitStarted,
  inReceive,
  receiveEnded,
  receiveStarted,
} from "../../../webhooks/telemetry/mod.ts";

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  const started = performance.now();
  const t = receiveStarted(started);
  await inReceive(t, async () => {
    await request.text();
    const span = commitStarted();
    await Promise.resolve();
    commitEnded(span, 1, true);
  });
  receiveEnded(t, 200, started, { itemCount: 1, tenantId: "tenant-exit" });
  return new Response(null, { status: 200 });
});
const res = await fetch(`http://127.0.0.1:${server.addr.port}/hooks`, { method: "POST", body: "[]" });
await res.body?.cancel();
await server.shutdown();
console.log("answered");
if (Deno.args[0] === "exit") Deno.exit(0);
