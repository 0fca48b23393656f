// An attempt's time limit that counts the time the worker could read: a
// process paused past the limit (SIGSTOP, a laptop asleep) wakes with its
// timer and the answer that came meanwhile both due at once, and the timer,
// run first, would fail an attempt the app had answered. A timer that fires
// this late gives the waiting answer one short grace to be read first.

/** A timer that fires later than this (ms) was held up: the process was paused or its loop blocked. */
const LATE_MS = 100;
/** How long a held-up timer waits once more for an answer already come (ms). */
const GRACE_MS = 100;

/** An attempt's time limit: its signal aborts (a `TimeoutError`) once the time has passed; `clear` ends it. */
export interface AttemptTimer {
  signal: AbortSignal;
  clear(): void;
}

/**
 * A time limit of `ms` whose signal aborts when it passes; a timer that fires more than {@linkcode LATE_MS} late
 * waits {@linkcode GRACE_MS} more once, so that an answer that came while the process was paused is read.
 */
export function attemptTimer(ms: number): AttemptTimer {
  const controller = new AbortController();
  const due = performance.now() + ms;
  let graced = false;
  const fire = () => {
    if (!graced && performance.now() - due > LATE_MS) {
      graced = true;
      timer = setTimeout(fire, GRACE_MS);
      return;
    }
    controller.abort(new DOMException("Signal timed out.", "TimeoutError"));
  };
  let timer = setTimeout(fire, ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
