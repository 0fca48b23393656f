/**
 * API.md, "Telemetry": `webhooks.platform.duration` is a histogram in `s`.
 * A real `register` against a platform on 127.0.0.1 that holds its answer
 * 300 ms must be measured as about 0.3, not 300 (milliseconds).
 */

import assert from "node:assert/strict";
import { createWebhooks, type MetricAttributes, observeMetrics } from "../../../webhooks/mod.ts";
import { communityOf, startPlatform } from "../platform.ts";

Deno.test("webhooks.platform.duration measures a register that took 300 ms as about 0.3 s", async () => {
  const platform = await startPlatform();
  platform.override = async (req) => {
    if (req.method === "POST") await new Promise((resolve) => setTimeout(resolve, 300));
    return undefined;
  };
  const kv = await Deno.openKv(":memory:");
  const seen: [string, number, MetricAttributes][] = [];
  const stop = observeMetrics((name, value, attributes) => void seen.push([name, value, { ...attributes }]));
  try {
    const hooks = createWebhooks(kv);
    const community = communityOf(platform);
    await hooks.communities.save(community);
    await hooks.register({
      community: community.name,
      events: ["document"],
      object: "https://c.example/api/core/v3/places/42",
      callback: "https://me.example/hook",
    });
    const durations = seen.filter(([name, , a]) =>
      name === "webhooks.platform.duration" && a["webhooks.operation"] === "register"
    );
    assert.equal(durations.length, 1);
    assert.deepEqual(durations[0][2], { "webhooks.operation": "register", "webhooks.outcome": "ok" });
    const seconds = durations[0][1];
    assert.ok(seconds >= 0.29 && seconds < 10, `seconds, not ms: ${seconds}`);
  } finally {
    stop();
    kv.close();
    await platform.close();
  }
});
