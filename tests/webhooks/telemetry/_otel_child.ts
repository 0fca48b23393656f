// Run by otel_test.ts with OTEL_DENO=true: serves requests whose handler
// records through the receiver's telemetry, runs platform operations that
// fetch from a local server, then waits for a metric export and exits.

import {
  commitEnded,
  commitStarted,
  groupCommitted,
  inReceive,
  platformOperation,
  receiveEnded,
  receiveStarted,
  resetTelemetry,
} from "../../../webhooks/telemetry/mod.ts";

const platform = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => Response.json({ ok: true }));
const platformUrl = `http://127.0.0.1:${platform.addr.port}/api/core/v3/webhooks`;

const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  const started = performance.now();
  const status = Number(new URL(request.url).searchParams.get("status"));
  const t = receiveStarted()!;
  await inReceive(t, async () => {
    await request.text();
    if (status !== 200) return;
    const span = commitStarted();
    await Promise.resolve();
    groupCommitted(2);
    commitEnded(span, 2, true);
  });
  receiveEnded(t, status, started, { itemCount: 1, tenantId: "tenant-7", duplicate: request.headers.has("x-dup") });
  return new Response(null, { status });
});
const at = (status: number, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${receiver.addr.port}/hooks?status=${status}`, { method: "POST", body: "[]", headers });

for (const [status, headers] of [[200, {}], [200, {}], [200, { "x-dup": "1" }], [401, {}]] as const) {
  await (await at(status, headers)).body?.cancel();
}

// Taken as off (the bench's "off" rows): nothing of this request is recorded.
resetTelemetry(true);
await (await at(404)).body?.cancel();
resetTelemetry();

await platformOperation("register", async (scope) => {
  scope.community("Acme");
  await (await fetch(platformUrl, { method: "POST" })).body?.cancel();
  await platformOperation("renew", async () => void await (await fetch(platformUrl)).body?.cancel());
});
await platformOperation("unregister", () => Promise.reject(new Error("refused")), "Acme").catch(() => {});

await receiver.shutdown();
await platform.shutdown();
// Two metric exports at the test's 200 ms.
await new Promise((resolve) => setTimeout(resolve, 600));
console.log("done");
