/**
 * One autocannon run of the load test and its figures: the requests each
 * answered, counted by status, and the postbacks answered 200 handed to
 * `onOk`. Private to `scripts/loadtest.ts`.
 *
 * @module
 */

import autocannon from "autocannon";
import type { SetupRequest } from "./load_postbacks.ts";

/** One autocannon run's figures. */
export interface Run {
  target: string;
  /** KV commits the process made per postback answered 200, when counted. */
  commitsPerPostback?: number;
  /** CPU time (user and system, all threads) the serving process used per request, µs, when measured. */
  cpuUsPerRequest?: number;
  connections: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  other: number;
  errors: number;
}

/**
 * Seconds each serving process is loaded, unmeasured, before its first
 * measured run: a process fresh from its start runs its first second or two
 * cold (V8 has not compiled its hot paths yet, its caches are empty), and the
 * console, with far more code on its path than the floor, paid for that in
 * its first round alone (measured over KV Connect +20 ms: the console's first
 * round 6 to 16% below its second, the floor's level). autocannon's own
 * `warmup` option does the same for one target.
 */
export const WARMUP_SECONDS = 2;

/** Requests a second a setup's first run is taken to reach (past it, the run signs as it sends). */
const FIRST_GUESS = 3_000;
/** Postbacks signed ahead at most (about 150 MB). */
const MOST_AHEAD = 250_000;
/** The most requests a second each setup's runs reached so far. */
const fastest = new WeakMap<SetupRequest, number>();

/**
 * Runs autocannon for `seconds` with `connections` against `url`; given
 * several URLs (one per serving process), it spreads the connections over
 * them in turn, and the figures (p50 and p99 included) are of all requests.
 */
export function cannon(
  url: string | string[],
  connections: number,
  seconds: number,
  setup?: SetupRequest,
  onOk?: (context: Record<string, unknown>) => void,
): Promise<Run & { statuses: Record<string, number> }> {
  // Sign ahead what the run will likely send: half again this setup's fastest run so far, per second.
  const rate = setup ? Math.max(fastest.get(setup) ?? 0, FIRST_GUESS) : 0;
  setup?.prepare?.(Math.min(MOST_AHEAD, Math.ceil(rate * 1.5 * seconds) + connections));
  return new Promise((resolve, reject) => {
    const statuses: Record<string, number> = {};
    const instance = autocannon({
      url,
      connections,
      duration: seconds,
      method: "POST",
      requests: [
        setup
          ? {
            method: "POST",
            setupRequest: setup,
            // One request in flight per connection: its context names the postback answered.
            onResponse: (status: number, _body: string, context: Record<string, unknown>) => {
              if (status === 200) onOk?.(context);
            },
          }
          : { method: "POST", body: "[]" },
      ],
    }, (err: Error | null, result: autocannon.Result) => {
      if (err) return reject(err);
      const ok = statuses["200"] ?? 0;
      if (setup) fastest.set(setup, Math.max(fastest.get(setup) ?? 0, result.requests.average));
      const total = Object.values(statuses).reduce((a, b) => a + b, 0);
      resolve({
        target: Array.isArray(url) ? url.join(" ") : url,
        connections,
        requests: total,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        ok,
        other: total - ok,
        errors: result.errors + result.timeouts,
        statuses,
      });
    });
    instance.on("response", (_client: unknown, status: number) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
}
