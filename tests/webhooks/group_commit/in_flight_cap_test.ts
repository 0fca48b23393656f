// The learnt cap of groups in flight on a remote KV (webhooks/group_commit/
// _in_flight.ts), driven by job times drawn from models of the two links the
// load test met: one where a shared commit waits 40 ms for a delayed
// acknowledgement (each postback alone, many in flight, does best), and one
// where it does not (few groups in flight, postbacks sharing commits, does
// best). Seeded noise, so a run is repeatable.

import assert from "node:assert/strict";
import fc from "fast-check";
import { InFlightCap, MAX_IN_FLIGHT, MIN_IN_FLIGHT, REMOTE_IN_FLIGHT } from "../../../webhooks/group_commit/mod.ts";

/** Mean job time (ms) at each cap, 16 connections: a commit of several postbacks stalls 40 ms. */
const STALL: Record<number, number> = { 1: 90, 2: 80, 4: 62, 8: 45, 16: 19, 32: 21, 64: 24 };
/** The same link without the stall: shared commits save the server's work. */
const NO_STALL: Record<number, number> = { 1: 40, 2: 8, 4: 10, 8: 13, 16: 19, 32: 24, 64: 30 };
/** A load the KV meets at once: every cap alike. */
const FLAT: Record<number, number> = { 1: 5, 2: 5, 4: 5, 8: 5, 16: 5, 32: 5, 64: 5 };

/** A small seeded generator (mulberry32), for repeatable noise. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `jobs` jobs through the cap, each taking the model's time at the cap it was submitted under, ±`noise`. */
function drive(
  cap: InFlightCap,
  model: Record<number, number>,
  jobs: number,
  noise: number,
  seed: number,
  bound = true,
) {
  const next = random(seed);
  const caps = new Map<number, number>();
  let now = 0;
  for (let i = 0; i < jobs; i++) {
    const ms = model[cap.value] * (1 + noise * (2 * next() - 1));
    caps.set(cap.value, (caps.get(cap.value) ?? 0) + 1);
    now += ms / cap.value; // the cap's jobs run side by side
    if (bound) cap.bound(); // more jobs than the cap: some wait for it
    cap.observe(cap.epoch, ms, now);
  }
  return { caps, now };
}

Deno.test("the cap starts at 16 and stays there where shared commits stall, trying others rarely", () => {
  const cap = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  assert.equal(cap.value, 16);
  const { caps } = drive(cap, STALL, 200_000, 0.2, 1);
  assert.equal(cap.value, 16);
  // Tries cost their windows; after each that does not pay, the next comes later: under 5% of jobs elsewhere.
  assert.ok(caps.get(16)! / 200_000 > 0.95, `jobs at 16: ${caps.get(16)}`);
});

Deno.test("the cap comes down to 2 where shared commits do not stall", () => {
  const cap = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  drive(cap, NO_STALL, 20_000, 0.2, 2);
  assert.equal(cap.value, 2);
  const { caps } = drive(cap, NO_STALL, 100_000, 0.2, 3);
  assert.equal(cap.value, 2);
  assert.ok(caps.get(2)! / 100_000 > 0.9, `jobs at 2: ${caps.get(2)}`);
});

Deno.test("the cap does not move when every cap measures alike, nor under a trickle of jobs", () => {
  const cap = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  drive(cap, FLAT, 50_000, 0.3, 4);
  assert.equal(cap.value, 16);
  // A trickle: one job every 500 ms, each window closes on time with too few jobs to tell.
  const trickle = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  for (let i = 1; i <= 1_000; i++) trickle.observe(trickle.epoch, i % 2 === 0 ? 1 : 500, i * 500);
  assert.equal(trickle.value, 16);
  assert.equal(trickle.epoch, 0);
});

Deno.test("a job submitted under an earlier cap does not count in the window of the cap now", () => {
  const cap = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  drive(cap, NO_STALL, 2_000, 0, 5);
  assert.ok(cap.epoch > 0);
  const { value, epoch } = cap;
  // Slow jobs of an old epoch would drive it away from any cap: they are ignored.
  for (let i = 0; i < 10_000; i++) cap.observe(epoch - 1, 10_000, 1e9 + i);
  assert.equal(cap.value, value);
  assert.equal(cap.epoch, epoch);
});

Deno.test("property: whatever the job times, the cap stays within its bounds and changes only with its epoch", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.double({ min: 0, max: 1e4, noNaN: true }), fc.integer({ min: 0, max: 5_000 })), {
        maxLength: 2_000,
      }),
      (jobs) => {
        const cap = new InFlightCap(REMOTE_IN_FLIGHT, 0);
        let now = 0;
        let last = { value: cap.value, epoch: cap.epoch };
        for (const [ms, gap] of jobs) {
          now += gap;
          cap.observe(cap.epoch, ms, now);
          assert.ok(cap.value >= MIN_IN_FLIGHT && cap.value <= MAX_IN_FLIGHT && Number.isInteger(cap.value));
          if (cap.value !== last.value) assert.ok(cap.epoch > last.epoch);
          last = { value: cap.value, epoch: cap.epoch };
        }
      },
    ),
  );
});

Deno.test("the cap is raised only when jobs waited for it: with fewer jobs at once, a higher cap changes nothing", () => {
  // Every cap above 16 would measure a little better by chance: without jobs waiting for the cap, none is tried.
  const RISING: Record<number, number> = { 1: 90, 2: 60, 4: 40, 8: 30, 16: 20, 32: 10, 64: 5 };
  const unbound = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  const { caps } = drive(unbound, RISING, 50_000, 0.1, 6, false);
  assert.ok([...caps.keys()].every((c) => c <= 16), `caps tried: ${[...caps.keys()]}`);
  assert.equal(unbound.value, 16);
  const bound = new InFlightCap(REMOTE_IN_FLIGHT, 0);
  drive(bound, RISING, 50_000, 0.1, 6, true);
  assert.equal(bound.value, 64);
});
