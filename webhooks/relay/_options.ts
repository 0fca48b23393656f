// The relay's options: defaults and checks.

import type { RelayOptions, RunOptions } from "./_types.ts";
import { describe as describeValue, MAX_TIMER_MS } from "../_util.ts";

/** The waits after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_SCHEDULE: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** Up to this share of a wait is added at random. */
export const JITTER = 0.2;

/** The options, checked, with their defaults. */
export interface ResolvedOptions {
  schedule: readonly number[];
  attemptTimeoutMs: number;
  leaseMs: number;
  allowPrivateNetwork: boolean;
  fetch: typeof fetch;
  now: () => number;
  pollMs: number;
}

function positive(name: string, value: unknown, fallback: number, max = MAX_TIMER_MS): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value)) {
    throw new TypeError(`Cannot create relay: '${name}' must be a number, got ${describeValue(value)}`);
  }
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new RangeError(`Cannot create relay: '${name}' must be above 0 and at most ${max} ms, got ${value}`);
  }
  return value;
}

/** The most bytes of an id that fits in a KV key (2,048 bytes, its prefix included). */
const MAX_KEY_PART = 2_000;
const encoder = new TextEncoder();

/** Whether `id` fits in a KV key: a longer one names nothing stored (KV's own "Key too large" names no argument). */
export function fitsKey(id: string): boolean {
  return encoder.encode(id).length <= MAX_KEY_PART;
}

/**
 * Throws a `TypeError` naming the first field of `o` not in `known`: a misspelt one (`concurency`) was dropped without
 * a word, its default used.
 */
export function onlyFields(o: object, known: readonly string[], action: string): void {
  const unknown = Object.keys(o).find((k) => !known.includes(k));
  if (unknown === undefined) return;
  const names = known.map((k) => `'${k}'`);
  throw new TypeError(
    `Cannot ${action}: it takes only ${names.slice(0, -1).join(", ")} and ${names.at(-1)}, got ${
      describeValue(unknown)
    }`,
  );
}

const RELAY_OPTIONS = ["schedule", "attemptTimeoutMs", "leaseMs", "allowPrivateNetwork", "fetch", "now", "pollMs"];
const RUN_OPTIONS = ["signal", "concurrency", "destinations", "onAttempt"];

/** Checks `createRelay`'s options; a `TypeError` or `RangeError` names the wrong one. */
export function resolveOptions(options: RelayOptions | undefined): ResolvedOptions {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`Cannot create relay: 'options' must be an object, got ${describeValue(options)}`);
  }
  const o = options ?? {};
  onlyFields(o, RELAY_OPTIONS, "create relay");
  let schedule = DEFAULT_SCHEDULE;
  if (o.schedule !== undefined) {
    if (!Array.isArray(o.schedule)) {
      throw new TypeError(
        `Cannot create relay: 'schedule' must be an array of waits in ms, got ${describeValue(o.schedule)}`,
      );
    }
    if (o.schedule.length > 100) {
      throw new RangeError(`Cannot create relay: 'schedule' may hold at most 100 waits, got ${o.schedule.length}`);
    }
    // A hole or `undefined` (`[, 5000]`) would end the schedule there: the entry dead after that attempt.
    for (let i = 0; i < o.schedule.length; i++) {
      const wait: unknown = o.schedule[i];
      if (wait === undefined) {
        throw new TypeError(`Cannot create relay: 'schedule[${i}]' must be a number, got undefined`);
      }
      positive(`schedule[${i}]`, wait, 0, 30 * 86_400_000);
    }
    schedule = [...o.schedule];
  }
  const attemptTimeoutMs = positive("attemptTimeoutMs", o.attemptTimeoutMs, 15_000);
  const leaseMs = positive("leaseMs", o.leaseMs, 30_000);
  if (leaseMs <= attemptTimeoutMs) {
    throw new RangeError(
      `Cannot create relay: 'leaseMs' (${leaseMs}) must be more than 'attemptTimeoutMs' (${attemptTimeoutMs})`,
    );
  }
  if (o.allowPrivateNetwork !== undefined && typeof o.allowPrivateNetwork !== "boolean") {
    throw new TypeError(
      `Cannot create relay: 'allowPrivateNetwork' must be a boolean, got ${describeValue(o.allowPrivateNetwork)}`,
    );
  }
  for (const name of ["fetch", "now"] as const) {
    if (o[name] !== undefined && typeof o[name] !== "function") {
      throw new TypeError(`Cannot create relay: '${name}' must be a function, got ${describeValue(o[name])}`);
    }
  }
  return {
    schedule,
    attemptTimeoutMs,
    leaseMs,
    allowPrivateNetwork: o.allowPrivateNetwork ?? false,
    fetch: o.fetch ?? ((input, init) => fetch(input, init)),
    now: o.now ?? Date.now,
    pollMs: positive("pollMs", o.pollMs, 1_000, 60_000),
  };
}

/** `run`'s options, checked. */
export interface ResolvedRun {
  signal?: AbortSignal;
  concurrency: number;
  destinations: string[] | null;
  onAttempt?: RunOptions["onAttempt"];
}

/** Checks `run`'s options. */
export function resolveRun(options: RunOptions | undefined): ResolvedRun {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`Cannot run relay: 'options' must be an object, got ${describeValue(options)}`);
  }
  const o = options ?? {};
  onlyFields(o, RUN_OPTIONS, "run relay");
  const concurrency: unknown = o.concurrency === undefined ? 16 : o.concurrency; // `null` is no default: a mistake
  if (typeof concurrency !== "number" || !Number.isInteger(concurrency)) {
    throw new TypeError(`Cannot run relay: 'concurrency' must be an integer, got ${describeValue(concurrency)}`);
  }
  if (concurrency < 1 || concurrency > 1000) {
    throw new RangeError(`Cannot run relay: 'concurrency' must be from 1 to 1000, got ${concurrency}`);
  }
  if (o.destinations !== undefined) {
    if (!Array.isArray(o.destinations) || o.destinations.some((id) => typeof id !== "string" || id === "")) {
      throw new TypeError(
        `Cannot run relay: 'destinations' must be an array of destination ids, got ${describeValue(o.destinations)}`,
      );
    }
    // An empty list (a filter that matched nothing, say) would make a worker that delivers nothing, silently.
    if (o.destinations.length === 0) {
      throw new RangeError(
        "Cannot run relay: 'destinations' must name at least one destination (leave it out for every shared one)",
      );
    }
    // No destination has such an id (ids are KV key parts): a worker for it would fail every look, silently.
    const long = o.destinations.find((id) => !fitsKey(id));
    if (long !== undefined) {
      throw new RangeError(
        `Cannot run relay: 'destinations' names an id of ${long.length} characters, too long for a destination id`,
      );
    }
  }
  if (o.onAttempt !== undefined && typeof o.onAttempt !== "function") {
    throw new TypeError(`Cannot run relay: 'onAttempt' must be a function, got ${describeValue(o.onAttempt)}`);
  }
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) {
    throw new TypeError(`Cannot run relay: 'signal' must be an AbortSignal, got ${describeValue(o.signal)}`);
  }
  return {
    signal: o.signal,
    concurrency,
    destinations: o.destinations ? [...o.destinations] : null,
    onAttempt: o.onAttempt,
  };
}

/** The wait after failed attempt number `attempts` (1-based), with jitter; `null`: no more attempts. */
export function nextWait(schedule: readonly number[], attempts: number, random = Math.random): number | null {
  const wait = schedule[attempts - 1];
  if (wait === undefined) return null;
  return Math.round(wait * (1 + JITTER * random()));
}
