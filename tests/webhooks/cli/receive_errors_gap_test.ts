// `receive`'s coalesced 5xx lines (_failure_lines.ts) ended a run only at an
// accepted postback or the stop: a second outage an hour later, with no
// postback accepted between, went on counting the first run, its first lines
// not shown. A run now also ends after QUIET_GAP_MS with no 5xx, its summary
// line said then (or, should the timer be late, before the next 5xx). Driven
// with a test clock: the attempts' `receivedAt` and a scheduler fired by hand.

import assert from "node:assert/strict";
import { failureLines, QUIET_GAP_MS } from "../../../webhooks/cli/mod.ts";
import type { ReceiverAttempt } from "../../../webhooks/receiver/mod.ts";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-01-02T03:00:00.000Z");

function attempt(status: number, receivedAt: number): ReceiverAttempt {
  return {
    status,
    reason: status >= 500 ? "Internal error" : "OK",
    tenantId: "t-1",
    durationMs: 1,
    receivedAt,
    bodyExcerpt: "",
    headers: {},
  };
}

/** A scheduler the test fires by hand: what is pending, and when it was asked for. */
function testClock() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  return {
    later(fn: () => void, ms: number): () => void {
      const id = next++;
      pending.set(id, { fn, ms });
      return () => pending.delete(id);
    },
    /** Runs what is pending (the time has come). */
    fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const { fn } of due) fn();
    },
    pending,
  };
}

Deno.test("receive's 5xx lines: a run ends after a quiet gap, its summary said then; a later outage starts anew", () => {
  const lines: string[] = [];
  const clock = testClock();
  const failures = failureLines((t) => lines.push(t), clock);
  for (let i = 0; i < 5; i++) failures.attempt(attempt(500, T0 + i * 1000));
  assert.equal(lines.length, 3);
  assert.deepEqual([...clock.pending.values()].map((p) => p.ms), [QUIET_GAP_MS], "one timer, re-armed at each 5xx");
  clock.fire(); // the gap has passed with no 5xx
  assert.equal(lines.length, 4, lines.join("\n"));
  assert.match(
    lines[3],
    /^… 2 more answers of 500 or more, 2 of the run of 5 not shown in full; the last: .*; ended by/,
  );
  assert.match(lines[3], new RegExp(`ended by ${QUIET_GAP_MS / 1000} s without another$`));
  // An hour later, a second outage: its first lines in full again (before: counted in the first run, not shown).
  for (let i = 0; i < 4; i++) failures.attempt(attempt(503, T0 + HOUR + i * 1000));
  assert.equal(lines.length, 7, lines.join("\n"));
  assert.ok(lines.slice(4).every((line) => / 503 tenant "t-1": Internal error$/.test(line)), lines.join("\n"));
  failures.end();
  assert.match(lines[7], /^… 1 more answers of 500 or more, 1 of the run of 4 not shown in full; .*ended by the stop$/);
  assert.equal(clock.pending.size, 0, "the stop leaves no timer");
});

Deno.test("receive's 5xx lines: a 5xx after the quiet gap ends the run before it, should the timer be late", () => {
  const lines: string[] = [];
  const clock = testClock();
  const failures = failureLines((t) => lines.push(t), clock);
  for (let i = 0; i < 4; i++) failures.attempt(attempt(500, T0 + i));
  failures.attempt(attempt(500, T0 + 3 + QUIET_GAP_MS)); // the timer has not run (a busy event loop)
  assert.equal(lines.length, 5, lines.join("\n"));
  assert.match(lines[3], /1 of the run of 4 not shown in full; .*ended by/);
  assert.match(lines[4], / 500 tenant "t-1": Internal error$/);
  // Within the gap a run goes on: a 5xx 59 s after the last is counted.
  failures.attempt(attempt(500, T0 + 3 + QUIET_GAP_MS + 1));
  failures.attempt(attempt(500, T0 + 3 + QUIET_GAP_MS * 2 - 1));
  failures.attempt(attempt(500, T0 + 3 + QUIET_GAP_MS * 3 - 2));
  assert.equal(lines.length, 7, lines.join("\n"));
  clock.fire(); // the gap passes: the run's summary, and the stop then has nothing more to say
  failures.end();
  assert.equal(lines.length, 8, lines.join("\n"));
  assert.match(lines[7], /1 of the run of 4 not shown in full; .*ended by \d+ s without another$/);
});

Deno.test("receive's 5xx lines: a slow 5xx reported late, received long before, does not end a run still going", () => {
  const lines: string[] = [];
  const failures = failureLines((t) => lines.push(t), testClock());
  // 5xx every 10 s for 70 s; one received at T0 but answered only now (the KV slow to fail: KV_TIMEOUT_SECONDS).
  for (let s = 0; s <= 70; s += 10) failures.attempt(attempt(500, T0 + s * 1000));
  failures.attempt(attempt(500, T0));
  failures.attempt(attempt(500, T0 + 75_000)); // 5 s after the run's latest 5xx: no gap at all
  assert.equal(lines.length, 3, `the run went on without a gap, yet was ended:\n${lines.join("\n")}`);
  failures.end();
  assert.match(lines[3], /7 of the run of 10 not shown in full; .*ended by the stop$/);
});
