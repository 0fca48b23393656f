/**
 * `GET /readyz` under a flood of probes: requests that come while a check
 * runs share its KV read (one read for all of them, each answered by it), and
 * a request after that check settled reads again (no answer is kept).
 */

import assert from "node:assert/strict";
import { Hono } from "hono";
import type { ConsoleEnv } from "../../console/lib/context.ts";
import { observabilityRoutes } from "../../console/routes/observability.ts";
import { heldKv } from "./_held_kv.ts";

Deno.test("GET /readyz: probes that come while a check runs share its one KV read; a later probe reads again", async () => {
  const { kv, reads, release, waiting } = await heldKv();
  const app = new Hono<ConsoleEnv>();
  // Counts the probes that reached the route: next() runs the route's handler up to its first wait, its check begun.
  let reached = 0;
  let allReached!: () => void;
  const twenty = new Promise<void>((resolve) => allReached = resolve);
  app.use("/readyz", async (_c, next) => {
    const handled = next();
    if (++reached === 20) allReached();
    await handled;
  });
  observabilityRoutes(app, { kv, metrics: null, token: undefined });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  try {
    const first = fetch(`${origin}/readyz`);
    await waiting; // the first probe's read has started and is held
    const rest = Array.from({ length: 19 }, () => fetch(`${origin}/readyz`));
    await twenty; // each of the others reached the route, its answer held with the read, before the read is let go
    void release();
    const answers = await Promise.all([first, ...rest].map(async (p) => {
      const res = await p;
      return [res.status, await res.json()];
    }));
    for (const answer of answers) assert.deepEqual(answer, [200, { ready: true }]);
    assert.equal(reads(), 1, `${reads()} KV reads for 20 probes at once`);
    const later = await fetch(`${origin}/readyz`);
    assert.deepEqual([later.status, await later.json()], [200, { ready: true }]);
    assert.equal(reads(), 2, "a probe after the check settled reads the KV again");
  } finally {
    await server.shutdown();
    kv.close();
  }
});
