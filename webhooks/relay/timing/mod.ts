/**
 * An attempt's times: its time limit, which gives an answer that came while
 * the worker was paused (a laptop asleep) a moment to be read before failing
 * the attempt, and the `Retry-After` of a 429 or 503 (seconds or an HTTP
 * date, at most a day).
 *
 * @module
 */

export { type AttemptTimer, attemptTimer } from "./_attempt_timer.ts";
export { parseRetryAfter, RETRY_AFTER_MAX_MS } from "./_retry_after.ts";
