// The stderr lines of `receive` for answers of 500 or more (postbacks the
// platform will retry), coalesced by count so that an outage under traffic
// (the KV lost: forged postbacks too are answered 500, before any signature
// is checked) cannot flood stderr: a run of such answers shows its first
// SHOWN_IN_FULL lines in full, then one line per LINE_EVERY more naming the
// last of them; an accepted postback (a 2xx: it took a community's secret) or
// the end of the command, or QUIET_GAP_MS without another 5xx (an unref'd
// timer, or the next 5xx's receivedAt should the timer be late), ends the run
// with one line saying how many were not shown. A 4xx neither ends a run nor
// is said: anyone can send one (no Authorization header is a 401 without the
// KV), and one between forged postbacks must not start a new run whose first
// lines come in full.

import type { ReceiverAttempt } from "../../receiver/mod.ts";
import { printable } from "../_format.ts";

/** Lines of a run of 5xx answers shown in full before they are counted instead. */
export const SHOWN_IN_FULL = 3;
/** Answers of 5xx, past the first ones, said in one line. */
export const LINE_EVERY = 100;

/** A run of 5xx answers ends once this long passed with none (its summary line said then). */
export const QUIET_GAP_MS = 60_000;

/** Longest tenant id a line shows whole, in code points; a longer one is cut there and ends with `…`. */
const TENANT_SHOWN = 64;

/**
 * The line of an answer of 500 or more: the time, the status, the tenant id
 * when known (the sender's text, made printable, cut at
 * {@linkcode TENANT_SHOWN} code points: with the KV lost, a 500 comes before
 * any signature is checked, so anyone can name one), the receiver's reason.
 * Never the signature or the body.
 */
function failureLine(attempt: ReceiverAttempt): string {
  return `${attemptHead(attempt)}: ${printable(attempt.reason)}`;
}

/**
 * What a line of `receive` about one answer starts with: the time, the status
 * and the tenant id when known (as the sender wrote it, made printable, in
 * quotes, cut at {@linkcode TENANT_SHOWN} code points).
 */
export function attemptHead(attempt: ReceiverAttempt): string {
  const points = attempt.tenantId === undefined ? [] : [...attempt.tenantId];
  const shown = points.length > TENANT_SHOWN ? `${points.slice(0, TENANT_SHOWN).join("")}…` : points.join("");
  const tenant = attempt.tenantId === undefined ? "" : ` tenant ${printable(JSON.stringify(shown))}`;
  return `${new Date(attempt.receivedAt).toISOString()} ${attempt.status}${tenant}`;
}

/** Says answers of 500 or more on stderr, coalesced; a 4xx is never said and ends no run (anyone can send those). */
export interface FailureLines {
  /** Takes the outcome of one postback. */
  attempt(attempt: ReceiverAttempt): void;
  /** The command ends: says what of the run under way was not shown. */
  end(): void;
}

/** How the lines know that a quiet gap has passed: the real timers by default, a test's by hand. */
export interface FailureClock {
  /** Calls `fn` once `ms` have passed; returns what cancels that. */
  later(fn: () => void, ms: number): () => void;
}

/** `setTimeout`, unref'd: a pending gap never keeps the process alive. */
const TIMERS: FailureClock = {
  later(fn, ms) {
    const timer = setTimeout(fn, ms);
    Deno.unrefTimer(timer);
    return () => clearTimeout(timer);
  },
};

/** Coalesced failure lines written with `err`; a run ends after {@linkcode QUIET_GAP_MS} without a 5xx, by `clock`. */
export function failureLines(err: (text: string) => void, clock: FailureClock = TIMERS): FailureLines {
  let run = 0; // answers of 500 or more since the run began
  let since = 0; // of those, not said since the last line
  let last = "";
  let lastAt = 0; // the latest receivedAt of the run's 5xx (answers come out of order: a slow one was received earlier)
  let cancel = () => {};
  const gap = `${QUIET_GAP_MS / 1000} s without another`;
  const close = (endedBy: string) => {
    cancel();
    cancel = () => {};
    const hidden = run - SHOWN_IN_FULL;
    if (hidden > 0) {
      err(
        since > 0
          ? `… ${since} more answers of 500 or more, ${hidden} of the run of ${run} not shown in full; the last: ${last}; ended by ${endedBy}`
          : `… ${hidden} of the run of ${run} answers of 500 or more not shown in full; ended by ${endedBy}`,
      );
    }
    run = 0;
    since = 0;
  };
  return {
    attempt(attempt) {
      if (attempt.status < 300) return close(`a ${attempt.status}`);
      if (attempt.status < 500) return;
      // The timer may be late (a busy event loop): a 5xx past the gap ends the run before it all the same.
      if (run > 0 && attempt.receivedAt - lastAt >= QUIET_GAP_MS) close(gap);
      lastAt = run > 0 ? Math.max(lastAt, attempt.receivedAt) : attempt.receivedAt;
      cancel();
      cancel = clock.later(() => close(gap), QUIET_GAP_MS);
      const line = failureLine(attempt);
      if (++run <= SHOWN_IN_FULL) return err(line);
      last = line;
      if (++since === LINE_EVERY) {
        err(`… ${LINE_EVERY} more answers of 500 or more; the last: ${line}`);
        since = 0;
      }
    },
    end: () => close("the stop"),
  };
}
