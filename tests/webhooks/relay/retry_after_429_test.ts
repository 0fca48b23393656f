// API.md, "Relay": "`Retry-After` on 429 or 503 is honoured when it is later
// than the next attempt." schedule_test.ts honours it on a 503 and shows a
// 429's sooner one ignored; here a 429's later one (seconds, then an HTTP
// date) must move the next attempt, on a test clock.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { driveClock, postback, seedHooks, startApp, writeAll } from "./fixtures.ts";

const START = Date.UTC(2026, 5, 1);

Deno.test("relay honours a 429's Retry-After (seconds or an HTTP date) when later than the schedule", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  let calls = 0;
  const app = startApp(() => {
    calls++;
    if (calls === 1) return new Response(null, { status: 429, headers: { "retry-after": "900" } });
    if (calls === 2) {
      // An hour after this attempt's time, as an IMF-fixdate: later than the schedule's 5 min.
      const date = new Date(clock.t + 3_600_000).toUTCString();
      return new Response(null, { status: 429, headers: { "retry-after": date } });
    }
    return new Response("ok");
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1")]);
    await app.waitFor(1);
    await driveClock(kv, clock);
    await worker.stop();
    const attempts = await relay.attempts(app.received[0].id);
    assert.deepEqual(attempts.map((a) => a.status), [429, 429, 200]);
    const gaps = attempts.slice(1).map((a, i) => a.time - attempts[i].time);
    assert.equal(gaps[0], 900_000, "Retry-After: 900 (15 min) is later than the first wait (5 s)");
    assert.equal(gaps[1], 3_600_000, "Retry-After an hour on is later than the second wait (5 min)");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
