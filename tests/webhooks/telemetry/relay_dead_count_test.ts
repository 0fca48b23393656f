/**
 * `webhooks.relay.attempts{webhooks.outcome="dead"}` counts an attempt only when its dead letter was written: the last
 * attempt of an entry whose destination was removed meanwhile, or whose lease was lost meanwhile, keeps its attempt
 * record but writes no dead letter, and is counted `failed` (an alert on `dead` would fire for nothing to redeliver).
 * Read in-process with `observeMetrics`, on a test clock, the schedule one attempt long.
 */

import assert from "node:assert/strict";
import { createRelay, observeMetrics } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

const START = Date.UTC(2026, 5, 1);

/** Runs one last attempt, answered `status` after `during` ran; resolves with the outcomes counted and what was stored. */
async function lastAttempt(during: (kv: Deno.Kv, destinationId: string) => Promise<void>, status = 500) {
  const outcomes: string[] = [];
  const stop = observeMetrics((name, value, attributes) => {
    if (name === "webhooks.relay.attempts") outcomes.push(`${attributes["webhooks.outcome"]}x${value}`);
  });
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  let destinationId = "";
  const app = startApp(async () => {
    await during(kv, destinationId);
    return new Response(null, { status });
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10, schedule: [] });
  try {
    await seedHooks(kv);
    destinationId = (await relay.destinations.add({ url: app.url })).id;
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await app.waitFor(1);
    const id = app.received[0].id;
    await until(async () => (await relay.attempts(id)).length === 1, 10_000, "the attempt record");
    await until(() => Promise.resolve(outcomes.length === 1), 10_000, "the attempt counted");
    await worker.stop();
    return { outcomes, letters: (await relay.deadLetters()).values.length };
  } finally {
    stop();
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("the last attempt to a destination removed meanwhile is counted failed, not dead: no dead letter exists", async () => {
  let removed = false;
  const { outcomes, letters } = await lastAttempt(async (kv, id) => {
    const other = createRelay(kv, { allowPrivateNetwork: true }); // another process's relay, as the console's
    removed = await other.destinations.remove(id);
    await other.close();
  });
  assert.equal(removed, true);
  assert.equal(letters, 0);
  assert.deepEqual(outcomes, ["failedx1"]);
});

Deno.test("the last attempt whose lease was lost meanwhile is counted failed, not dead: no dead letter exists", async () => {
  const { outcomes, letters } = await lastAttempt(async (kv) => {
    // Another worker's take, as KV sees it: the held key rewritten, so this worker's finish is refused.
    for await (const due of kv.list({ prefix: ["relay_due"] })) await kv.set(due.key, due.value);
  });
  assert.equal(letters, 0);
  assert.deepEqual(outcomes, ["failedx1"]);
});

Deno.test("a 410 whose disable is refused (the record damaged meanwhile) still ends its entry: recorded, dead-lettered, counted gone", async () => {
  const { outcomes, letters } = await lastAttempt(async (kv, id) => {
    await kv.set(["relay_destination", id], { nonsense: 1 }); // hand-edited into junk while the request ran
  }, 410);
  assert.equal(letters, 1);
  assert.deepEqual(outcomes, ["gonex1"]);
});
