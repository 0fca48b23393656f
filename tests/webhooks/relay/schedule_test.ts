// The retry schedule on a test clock (the `now` option): 5 s, 5 min, 30 min,
// 2 h, 5 h, 10 h, 10 h with up to 20% jitter, then a dead letter;
// Retry-After on 429 and 503.

import assert from "node:assert/strict";
import { createRelay, type Postback, type Relay } from "../../../webhooks/mod.ts";
import { type App, driveClock, postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const START = Date.UTC(2026, 5, 1);
const WAITS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** Asserts that consecutive attempt times are the schedule's waits plus at most 20%. */
function assertOnSchedule(times: number[]): void {
  for (let i = 1; i < times.length; i++) {
    const gap = times[i] - times[i - 1];
    assert.ok(gap >= WAITS[i - 1] && gap <= WAITS[i - 1] * 1.2, `wait ${i}: ${gap} ms for ${WAITS[i - 1]}`);
  }
}

/**
 * Relays `items` (written `perCommit` to a commit) on a test clock to an app
 * that answers with `answer` (given the clock's time), waits for the first
 * attempt of each, then drives the clock until nothing is due; `check` then
 * reads what happened.
 */
async function relayOnClock(
  answer: (now: number) => Response,
  { items, perCommit }: { items: Postback[]; perCommit?: number },
  check: (relay: Relay, app: App) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  const app = startApp(() => answer(clock.t));
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, items, perCommit);
    await app.waitFor(items.length);
    await driveClock(kv, clock);
    await worker.stop();
    await check(relay, app);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("relay retries on schedule: a destination failing for 10 minutes then answering gets every entry on time", async () => {
  const answer = (now: number) => new Response(null, { status: now < START + 600_000 ? 500 : 200 });
  const items = Array.from({ length: 10 }, (_, i) => postback("h1", i));
  await relayOnClock(answer, { items, perCommit: 5 }, async (relay, app) => {
    const ids = [...new Set(app.received.map((r) => r.id))];
    assert.equal(ids.length, 10);
    for (const id of ids) {
      const attempts = await relay.attempts(id);
      // 0 s, 5 s, 5 min 5 s: 500; 35 min 5 s (past the 10 minutes): 200.
      assert.deepEqual(attempts.map((a) => a.status), [500, 500, 500, 200]);
      assertOnSchedule(attempts.map((a) => a.time));
    }
    assert.equal((await relay.deadLetters()).values.length, 0);
  });
});

Deno.test("relay makes eight attempts in about 27 hours, then a dead letter", async () => {
  const answer = () => new Response("down", { status: 502 });
  await relayOnClock(answer, { items: [postback("h1")] }, async (relay, app) => {
    const id = app.received[0].id;
    const attempts = await relay.attempts(id);
    assert.equal(attempts.length, 8);
    assertOnSchedule(attempts.map((a) => a.time));
    const total = attempts[7].time - attempts[0].time;
    // The waits add up to 27.6 h; each may gain up to 20% (33.1 h in all: a bound of 32 h failed now and then).
    const waits = WAITS.reduce((sum, wait) => sum + wait, 0);
    assert.ok(total >= waits && total <= waits * 1.2, `${total / 3_600_000} h`);
    const [dead] = (await relay.deadLetters()).values;
    assert.equal(dead.id, id);
    assert.equal(dead.attempts, 8);
  });
});

Deno.test("relay honours Retry-After on 503 when later than the schedule, and keeps the schedule when sooner (429)", async () => {
  let calls = 0;
  const answer = () => {
    calls++;
    if (calls === 1) return new Response(null, { status: 503, headers: { "retry-after": "600" } });
    if (calls === 2) return new Response(null, { status: 429, headers: { "retry-after": "1" } });
    if (calls === 3) return new Response(null, { status: 500, headers: { "retry-after": "99999" } });
    return new Response("ok");
  };
  await relayOnClock(answer, { items: [postback("h1")] }, async (relay, app) => {
    const times = (await relay.attempts(app.received[0].id)).map((a) => a.time);
    assert.equal(times.length, 4);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.equal(gaps[0], 600_000); // Retry-After: 10 min, later than 5 s
    assert.ok(gaps[1] >= 300_000 && gaps[1] <= 360_000, `${gaps[1]}`); // 1 s is sooner than 5 min
    assert.ok(gaps[2] >= 1_800_000 && gaps[2] <= 2_160_000, `${gaps[2]}`); // a 500's Retry-After is not honoured
  });
});

Deno.test("relay removes a pinned destination that no worker held for 10 minutes (its mark still for 3 minutes)", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  const holder = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  try {
    const pinned = await relay.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    const kept = await relay.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    const shared = await relay.destinations.add({ url: "http://127.0.0.1:9/" });
    // Holds `kept`, from a relay of its own (another process's): its housekeeping's look at `pinned`, at START, is not
    // this relay's first sighting of that mark, which the 3 minutes count from.
    const own = holder.run({ destinations: [kept.id] });
    const heldKey = ["relay_pin_held", kept.id];
    await until(async () => (await kv.get(heldKey)).value !== null, 5_000, "the worker's mark");
    clock.t += 9 * 60_000;
    let general = relay.run();
    await new Promise((r) => setTimeout(r, 100));
    await general.stop();
    assert.equal((await relay.destinations.list()).length, 3); // 9 minutes: kept
    clock.t += 2 * 60_000;
    await own.stop();
    const held = await kv.get<number>(heldKey);
    await kv.set(heldKey, clock.t); // as its worker's minutely mark would
    // 11 minutes by its mark, but a mark this relay has not yet seen stand still: its holder may be a machine whose
    // clock runs behind this one's.
    general = relay.run();
    await new Promise((r) => setTimeout(r, 100));
    await general.stop();
    assert.equal((await relay.destinations.list()).length, 3);
    clock.t += 3 * 60_000; // its mark unchanged for 3 minutes of this relay's clock: no worker holds it
    general = relay.run();
    await until(async () => (await relay.destinations.get(pinned.id)) === null, 5_000, "the removal");
    await general.stop();
    assert.equal(held.value, START);
    assert.deepEqual((await relay.destinations.list()).map((d) => d.id).sort(), [kept.id, shared.id].sort());
  } finally {
    await holder.close();
    await relay.close();
    kv.close();
  }
});

Deno.test("a worker whose clock runs 11 minutes ahead leaves a pinned destination alone while its holder marks it", async () => {
  const kv = await Deno.openKv(":memory:");
  const holder = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  const ahead = { t: Date.now() + 11 * 60_000 };
  const skewed = createRelay(kv, { allowPrivateNetwork: true, now: () => ahead.t, pollMs: 10 });
  const heldKey = ["relay_pin_held"];
  try {
    const pinned = await holder.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    const pass = async (relay: typeof holder, options?: { destinations: string[] }) => {
      const worker = relay.run(options); // its housekeeping runs at its start
      await new Promise((r) => setTimeout(r, 150));
      await worker.stop();
    };
    for (let minute = 0; minute < 6; minute++) {
      await pass(holder, { destinations: [pinned.id] }); // the holder's mark, as each minute
      ahead.t += 60_000;
      await pass(skewed);
      assert.notEqual(await skewed.destinations.get(pinned.id), null, `removed at minute ${minute}`);
    }
    // The holder gone: its mark stands still, and after 3 minutes of the other's clock the pin goes.
    ahead.t += 60_000;
    await pass(skewed);
    ahead.t += 3 * 60_000;
    await pass(skewed);
    assert.equal(await skewed.destinations.get(pinned.id), null);
    assert.equal((await kv.get([...heldKey, pinned.id])).value, null);
  } finally {
    await holder.close();
    await skewed.close();
    kv.close();
  }
});
