/**
 * Rounds of the load test: the floor and the receiver run in turns, the
 * order swapped each round (floor first, then receiver first, ...), so that
 * the machine's drift (a shared host swings 10-20% over a minute) falls on
 * both alike; their rows are then merged, and the targets judged on the
 * median of the per-round figures. Used by `scripts/loadtest.ts`; tested in `tests/scripts/`.
 *
 * @module
 */

import type { Run } from "./_load_cannon.ts";

export type { Run };

/** The median of some numbers (the mean of the middle two of an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The turns of round `round` (from 0): the floor first in even rounds, the receiver first in odd ones. */
export function turns<T>(round: number, floor: T, receiver: T): [T, T] {
  return round % 2 === 0 ? [floor, receiver] : [receiver, floor];
}

/**
 * One row from the runs of a target's rounds: requests and answers summed,
 * req/s the mean, p50 and p99 the median of the rounds' (a tail is a
 * property of one run, not of a sum of runs).
 */
export function merged(runs: Run[]): Run {
  if (runs.length === 0) throw new RangeError("Cannot merge runs: none were given");
  const sum = (pick: (r: Run) => number) => runs.reduce((total, r) => total + pick(r), 0);
  // CPU per request over all the runs' requests, when every run measured it.
  const cpu = runs.every((r) => r.cpuUsPerRequest !== undefined) && sum((r) => r.requests) > 0
    ? { cpuUsPerRequest: sum((r) => r.cpuUsPerRequest! * r.requests) / sum((r) => r.requests) }
    : {};
  return {
    target: runs[0].target,
    ...cpu,
    connections: runs[0].connections,
    requests: sum((r) => r.requests),
    rps: sum((r) => r.rps) / runs.length,
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    ok: sum((r) => r.ok),
    other: sum((r) => r.other),
    errors: sum((r) => r.errors),
  };
}

/** What the rounds at one number of connections say of the receiver against the floor. */
export interface RoundVerdict {
  connections: number;
  /** Receiver answers 200 a second over the floor's, per round, in the order run. */
  ratios: number[];
  /** Their median: the figure the target is judged on. */
  ratio: number;
  /** Median p99 of the receiver's rounds and of the floor's, in ms. */
  p99: { receiver: number; floor: number };
}

/** Answers 200 a second of a run: its req/s times its share of answers 200 (a failed answer takes nothing in). */
export function okRate(run: Run): number {
  return run.requests > 0 ? (run.rps * run.ok) / run.requests : 0;
}

/**
 * The verdict of paired rounds: `floors[i]` and `receivers[i]` ran in the
 * same round. Each round's ratio is of answers 200 a second, so a receiver
 * that fails fast does not pass.
 */
export function verdictOf(floors: Run[], receivers: Run[]): RoundVerdict {
  if (floors.length === 0 || floors.length !== receivers.length) {
    throw new RangeError(
      `Cannot judge rounds: ${floors.length} floor runs and ${receivers.length} receiver runs (the same number, at least one)`,
    );
  }
  const ratios = receivers.map((r, i) => okRate(r) / okRate(floors[i]));
  return {
    connections: receivers[0].connections,
    ratios,
    ratio: median(ratios),
    p99: { receiver: median(receivers.map((r) => r.p99)), floor: median(floors.map((r) => r.p99)) },
  };
}
