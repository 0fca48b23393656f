/**
 * `GET /readyz` over a KV whose read hangs: the probe is answered 503 once
 * its 2 s are up, but the read itself is still running. Probes after that
 * one wait on the same read (each with its own 2 s) rather than starting
 * another: a KV that never answers (a KV Connect server gone quiet) would
 * otherwise gather one more read left running for every probe, for as long
 * as it stays quiet. Once the read ends, a later probe reads again.
 */

import assert from "node:assert/strict";
import { Hono } from "hono";
import type { ConsoleEnv } from "../../console/lib/context.ts";
import { observabilityRoutes } from "../../console/routes/observability.ts";
import { heldKv } from "./_held_kv.ts";

const LATE = { ready: false, reason: "the KV did not answer a read within 2 s" };

Deno.test("GET /readyz: probes after one that timed out wait on its read still running, not a new read each", async () => {
  const { kv, reads, release } = await heldKv();
  const app = new Hono<ConsoleEnv>();
  observabilityRoutes(app, { kv, metrics: null, token: undefined });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const probe = async () => {
    const res = await fetch(`${origin}/readyz`);
    return [res.status, await res.json()];
  };
  try {
    assert.deepEqual(await probe(), [503, LATE]);
    assert.deepEqual(await Promise.all([probe(), probe(), probe()]), [[503, LATE], [503, LATE], [503, LATE]]);
    assert.deepEqual(await probe(), [503, LATE]);
    assert.equal(reads(), 1, `${reads()} KV reads started for 5 probes while the first read hung`);
    await release(); // the hung read ends (and the route heard it) before the next probe arrives
    assert.deepEqual(await probe(), [200, { ready: true }]);
    assert.equal(reads(), 2, "a probe after the hung read ended reads the KV again");
  } finally {
    await release();
    await server.shutdown();
    kv.close();
  }
});
