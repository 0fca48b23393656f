// The live hub's timers (console/islands/_live.ts): a page that polls all
// day (no BroadcastChannel here, as where a browser has no Web Locks) keeps
// its pending timers only, not one for every poll since it opened.

import assert from "node:assert/strict";
import { parse } from "./_client.ts";
import { type LiveState, subscribeLive } from "../../console/islands/_live.ts";

/** A clock the test turns by hand, in place of the global timers. */
function fakeTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  let cleared = 0;
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  Object.assign(globalThis, {
    setTimeout: (fn: () => void, ms: number) => (pending.set(next, { fn, ms }), next++),
    clearTimeout: (id: number) => {
      cleared++;
      pending.delete(id);
    },
  });
  return {
    pending,
    cleared: () => cleared,
    /** Fires every pending timer of `ms`, then lets what they started run. */
    async fire(ms: number) {
      for (const [id, timer] of [...pending]) {
        if (timer.ms !== ms) continue;
        pending.delete(id);
        timer.fn();
      }
      await new Promise((resolve) => real.setTimeout(resolve, 0));
    },
    restore: () => Object.assign(globalThis, real),
  };
}

Deno.test("a page that polls all day keeps only its pending timer, and stopping clears that one", async () => {
  const page = parse("<!doctype html><html><body></body></html>");
  const hadDocument = "document" in globalThis;
  const channel = globalThis.BroadcastChannel;
  Object.assign(globalThis, { document: page.document, BroadcastChannel: undefined });
  const clock = fakeTimers();
  try {
    const states: LiveState[] = [];
    let looks = 0;
    const unsubscribe = subscribeLive({ onDelivery: () => looks++, onState: (s) => states.push(s) });
    assert.equal(states.at(-1), "polling");
    for (let i = 0; i < 500; i++) await clock.fire(5_000);
    assert.equal(looks, 501, "one look on subscribing, one a poll");
    assert.equal(clock.pending.size, 1, "the next poll is pending");
    const before = clock.cleared();
    unsubscribe();
    assert.equal(clock.pending.size, 0, "no poll after the page stops");
    assert.ok(clock.cleared() - before <= 1, `stopping cleared ${clock.cleared() - before} timers`);
    assert.equal(page.document.documentElement.dataset.liveRole, "off");
  } finally {
    clock.restore();
    Object.assign(globalThis, { BroadcastChannel: channel });
    if (!hadDocument) delete (globalThis as { document?: unknown }).document;
    page.close();
  }
});
