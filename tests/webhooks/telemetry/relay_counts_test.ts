/**
 * The relay's attempt metrics agree with its own records in every path, read
 * in-process with `observeMetrics` on a test clock: a 429 with Retry-After
 * then a 200, a 500 to the schedule's end (its last attempt `dead`, not also
 * `failed`), a 410 (`gone` alone) and a refused connection to its end. Each
 * attempt that `relay.attempts()` holds is counted once and timed once.
 */

import assert from "node:assert/strict";
import { createRelay, observeMetrics } from "../../../webhooks/mod.ts";
import { driveClock, postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

const START = Date.UTC(2026, 5, 1);

/** A port on 127.0.0.1 that nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("the relay's attempt counts and durations match relay.attempts() and its dead letters, path by path", async () => {
  const counts = new Map<string, number>();
  const stop = observeMetrics((name, value, attributes) => {
    const key = `${name} ${attributes["webhooks.outcome"]}`;
    counts.set(key, (counts.get(key) ?? 0) + (name === "webhooks.relay.attempts" ? value : 1));
  });
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  const seen = new Map<string, number>();
  const app = startApp((r) => {
    const index = JSON.parse(r.body).data.index as number;
    const n = (seen.get(r.id) ?? 0) + 1;
    seen.set(r.id, n);
    if (index === 0) {
      return n === 1 ? new Response(null, { status: 429, headers: { "retry-after": "60" } }) : new Response("ok");
    }
    return new Response(null, { status: 500 });
  });
  const gone = startApp(() => new Response(null, { status: 410 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    await relay.destinations.add({ url: gone.url, hookIds: ["h2"] });
    await relay.destinations.add({ url: `http://127.0.0.1:${closedPort()}/hooks`, hookIds: ["h2"] });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0), postback("h1", 1), postback("h2", 0, "q".repeat(64))]);
    await until(
      async () => {
        await driveClock(kv, clock);
        return (await relay.deadLetters()).values.length === 3 && seen.size === 2;
      },
      20_000,
      "three dead letters and one delivery",
    );
    await worker.stop();

    const letters = (await relay.deadLetters()).values;
    const ids = new Set([...seen.keys(), ...letters.map((l) => l.id)]);
    assert.equal(ids.size, 4);
    const expected = new Map<string, number>();
    for (const id of ids) {
      const attempts = await relay.attempts(id);
      const dead = letters.some((l) => l.id === id);
      attempts.forEach((a, i) => {
        const outcome = a.status >= 200 && a.status < 300
          ? "delivered"
          : a.status === 410
          ? "gone"
          : dead && i === attempts.length - 1
          ? "dead"
          : "failed";
        expected.set(outcome, (expected.get(outcome) ?? 0) + 1);
      });
      if (attempts[0].status === 429) assert.ok(attempts[1].time - attempts[0].time >= 60_000, "Retry-After kept");
    }
    assert.deepEqual(Object.fromEntries(expected), { failed: 15, delivered: 1, dead: 2, gone: 1 });
    for (const name of ["webhooks.relay.attempts", "webhooks.relay.duration"]) {
      for (const [outcome, n] of expected) assert.equal(counts.get(`${name} ${outcome}`), n, `${name} ${outcome}`);
    }
    assert.equal(counts.size, 8, [...counts.keys()].join(", "));
  } finally {
    stop();
    await relay.close();
    await app.close();
    await gone.close();
    kv.close();
  }
});

Deno.test("an attempt cut short by the worker's stop is neither counted nor recorded; taken again, it counts once", async () => {
  const counts: string[] = [];
  const stop = observeMetrics((name, _value, attributes) => {
    if (name === "webhooks.relay.attempts") counts.push(String(attributes["webhooks.outcome"]));
  });
  const kv = await Deno.openKv(":memory:");
  let hang = true;
  const app = startApp(async () => {
    while (hang) await new Promise((r) => setTimeout(r, 10));
    return new Response("ok");
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await app.waitFor(1);
    await worker.stop();
    const id = app.received[0].id;
    assert.deepEqual(await relay.attempts(id), []);
    assert.deepEqual(counts, [], "a stopped attempt is not counted");
    hang = false;
    const again = relay.run();
    await until(async () => (await relay.attempts(id)).length === 1, 10_000, "the attempt after the restart");
    await again.stop();
    assert.deepEqual(counts, ["delivered"]);
  } finally {
    stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});
