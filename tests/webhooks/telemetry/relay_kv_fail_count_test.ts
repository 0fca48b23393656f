/**
 * An attempt made while the KV fails is still counted: the app answers 500 after the worker's KV has failed (closed
 * under it, as a KV that went away), so neither the read of the destination after the failed attempt nor the commit
 * that would write its retry can run. The attempt reached the app, so `webhooks.relay.attempts` counts it `failed`
 * once (the entry is taken again when its lease ends, as docs/relay.md says). Read in-process with `observeMetrics`.
 */

import assert from "node:assert/strict";
import { createRelay, observeMetrics } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

Deno.test("a failed attempt whose end finds the KV failing is still counted failed", async () => {
  const outcomes: string[] = [];
  const stop = observeMetrics((name, value, attributes) => {
    if (name === "webhooks.relay.attempts") outcomes.push(`${attributes["webhooks.outcome"]}x${value}`);
  });
  const kv = await Deno.openKv(":memory:");
  let closed = false;
  const app = startApp(() => {
    kv.close(); // the KV goes away while the request runs
    closed = true;
    return Promise.resolve(new Response("no", { status: 500 }));
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    await relay.destinations.list();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    const worker = relay.run();
    await app.waitFor(1);
    await until(() => Promise.resolve(closed && outcomes.length > 0), 5_000, "the attempt counted");
    await worker.stop().catch(() => {});
    assert.deepEqual(outcomes, ["failedx1"]);
  } finally {
    stop();
    await relay.close().catch(() => {});
    await app.close();
    if (!closed) kv.close();
  }
});
