// The load test's rounds: turns swap each round, rows merge, and targets are judged on the median of the rounds.

import assert from "node:assert/strict";
import { median, merged, type Run, turns, verdictOf } from "../../scripts/load_rounds.ts";

function run(target: string, rps: number, p99: number, p50 = 1): Run {
  return { target, connections: 16, requests: rps * 10, rps, p50, p99, ok: rps * 10 - 1, other: 1, errors: 0 };
}

Deno.test("median: the middle value, or the mean of the middle two", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.ok(Number.isNaN(median([])));
});

Deno.test("turns: the floor goes first in even rounds, the receiver in odd ones", () => {
  assert.deepEqual(turns(0, "floor", "receiver"), ["floor", "receiver"]);
  assert.deepEqual(turns(1, "floor", "receiver"), ["receiver", "floor"]);
  assert.deepEqual(turns(2, "floor", "receiver"), ["floor", "receiver"]);
});

Deno.test("merged: sums requests and answers, averages req/s, takes the median tail", () => {
  const row = merged([run("floor", 100, 9, 2), run("floor", 300, 30, 4), run("floor", 200, 12, 3)]);
  assert.equal(row.target, "floor");
  assert.equal(row.requests, 6000);
  assert.equal(row.rps, 200);
  assert.equal(row.p99, 12);
  assert.equal(row.p50, 3);
  assert.equal(row.ok, 5997);
  assert.equal(row.other, 3);
  assert.throws(() => merged([]), { name: "RangeError", message: "Cannot merge runs: none were given" });
  assert.equal(row.cpuUsPerRequest, undefined, "no run measured its CPU");
});

Deno.test("merged: CPU per request over all the runs' requests, only when every run measured it", () => {
  const [a, b] = [run("floor", 100, 9, 2), run("floor", 300, 30, 4)];
  a.cpuUsPerRequest = 200; // 1,000 requests
  b.cpuUsPerRequest = 100; // 3,000 requests
  assert.equal(merged([a, b]).cpuUsPerRequest, 125);
  assert.equal(merged([a, run("floor", 300, 30, 4)]).cpuUsPerRequest, undefined);
});

Deno.test("verdictOf: per-round ratios of the same round, judged on their median", () => {
  // A drifting host: each round's pair is fair, the means are not (the receiver's best round is the floor's best).
  const floors = [run("floor", 1000, 20), run("floor", 2000, 10), run("floor", 1500, 15)];
  const receivers = [run("receiver", 900, 22), run("receiver", 2200, 9), run("receiver", 1650, 14)];
  const v = verdictOf(floors, receivers);
  assert.deepEqual(v.ratios.map((x) => x.toFixed(2)), ["0.90", "1.10", "1.10"]);
  assert.equal(v.ratio.toFixed(2), "1.10");
  assert.deepEqual(v.p99, { receiver: 14, floor: 15 });
  assert.equal(v.connections, 16);
  assert.throws(() => verdictOf(floors, receivers.slice(1)), {
    name: "RangeError",
    message: "Cannot judge rounds: 3 floor runs and 2 receiver runs (the same number, at least one)",
  });
  assert.throws(() => verdictOf([], []), RangeError);
});

Deno.test("verdictOf: a round is judged on the answers 200 a second, not on every answer", () => {
  // Twice the floor's req/s, but half of its answers 500: as many postbacks taken as the floor, so 1.0x, not 2.0x.
  const floor: Run = {
    target: "floor",
    connections: 16,
    requests: 10_000,
    rps: 1000,
    p50: 1,
    p99: 5,
    ok: 10_000,
    other: 0,
    errors: 0,
  };
  const receiver: Run = { ...floor, target: "receiver", requests: 20_000, rps: 2000, ok: 10_000, other: 10_000 };
  assert.equal(verdictOf([floor], [receiver]).ratio, 1);
  // Errors (no answer at all) count as not taken too.
  assert.equal(verdictOf([floor], [{ ...receiver, other: 0, errors: 10_000 }]).ratio, 1);
});
