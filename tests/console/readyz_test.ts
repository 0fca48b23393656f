/**
 * `GET /readyz`'s 2 s limit (API.md: 200 once a KV read succeeds within
 * 2 s, else 503 with a JSON reason), on a real server over the project's KV
 * Connect test server, each time with a fresh client, whose first read is
 * two answers (the metadata exchange, then the read): every answer 3 s
 * late makes that read take 6 s, and the route says "not ready" once its
 * 2 s are up, not when the read ends; every answer 300 ms late is ready.
 */

import assert from "node:assert/strict";
import { Hono } from "hono";
import type { ConsoleEnv } from "../../console/lib/context.ts";
import { observabilityRoutes, READY_TIMEOUT_MS } from "../../console/routes/observability.ts";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";

/** Serves the observability routes over a KV Connect server whose every answer is `latencyMs` late. */
async function readyzOver(latencyMs: number, fn: (origin: string) => Promise<void>): Promise<void> {
  const remote = await startKvConnectServer({ token: TEST_TOKEN, latencyMs });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(remote.url);
  const app = new Hono<ConsoleEnv>();
  observabilityRoutes(app, { kv, metrics: null, token: undefined });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
    // Our own read ends after the route's late one: Deno's client does not drop a read in flight at close(),
    // and one left running retries (and logs) once the remote server is gone.
    await kv.get(["settled"]);
    kv.close();
    await remote.close();
  }
}

async function timedReadyz(origin: string): Promise<{ status: number; body: unknown; ms: number }> {
  const start = performance.now();
  const res = await fetch(`${origin}/readyz`);
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - start };
}

Deno.test("GET /readyz answers 503 with a reason after 2 s when the KV read hangs longer", async () => {
  assert.equal(READY_TIMEOUT_MS, 2_000);
  await readyzOver(3_000, async (origin) => {
    const { status, body, ms } = await timedReadyz(origin);
    assert.deepEqual([status, body], [503, { ready: false, reason: "the KV did not answer a read within 2 s" }]);
    // The timeout answered: not before 2 s, and well before the read's 6 s (2.5 s of room for a loaded machine).
    assert.ok(ms >= READY_TIMEOUT_MS - 5, `answered after ${ms.toFixed(0)} ms`);
    assert.ok(ms < 4_500, `answered after ${ms.toFixed(0)} ms`);
  });
});

Deno.test("GET /readyz answers 200 when the KV's read comes late but within 2 s", async () => {
  await readyzOver(300, async (origin) => {
    const { status, body, ms } = await timedReadyz(origin);
    assert.deepEqual([status, body], [200, { ready: true }]);
    assert.ok(ms >= 300, `answered after ${ms.toFixed(0)} ms: the read went to the slow KV`);
  });
});
