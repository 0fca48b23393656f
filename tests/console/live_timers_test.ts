// The live hub's timers (console/islands/_live.ts, private to its folder,
// so reached through an island that listens, LiveHealth): a page that polls
// all day (no BroadcastChannel here, as where a browser has no Web Locks)
// keeps its pending timers only, not one for every poll since it opened.

import assert from "node:assert/strict";
import { h, options, render } from "preact";
import LiveHealth from "../../console/islands/LiveHealth.tsx";
import { parse } from "./_client.ts";

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
    /** Fires every pending timer of `ms` or less, then lets what they started run. */
    async fire(ms: number) {
      for (const [id, timer] of [...pending]) {
        if (timer.ms > ms) continue;
        pending.delete(id);
        timer.fn();
      }
      await new Promise((resolve) => real.setTimeout(resolve, 0));
    },
    restore: () => Object.assign(globalThis, real),
  };
}

Deno.test("a page that polls all day keeps only its pending timer, and stopping clears that one", async () => {
  const page = parse("<!doctype html><html><body><div id=cell></div></body></html>");
  const hadDocument = "document" in globalThis;
  const channel = globalThis.BroadcastChannel;
  const xhr = globalThis.XMLHttpRequest;
  let reads = 0;
  // The island's reads of the hook's health, counted and never answered.
  class CountingXhr {
    open() {
      reads++;
    }
    send() {}
    setRequestHeader() {}
    addEventListener() {}
  }
  Object.assign(globalThis, { document: page.document, BroadcastChannel: undefined, XMLHttpRequest: CountingXhr });
  const raf = options.requestAnimationFrame;
  options.requestAnimationFrame = (flush: () => void) => flush(); // effects run at once, not on a timer
  const clock = fakeTimers();
  const cell = page.document.getElementById("cell")! as unknown as Element;
  try {
    render(h(LiveHealth, { hookId: "h1" }), cell);
    await clock.fire(0);
    assert.equal(page.document.documentElement.dataset.liveRole !== "off", true, "the hub runs");
    // Each turn fires the poll, and the cell's read that the poll before it asked for (at most every 2 s).
    for (let i = 0; i < 500; i++) await clock.fire(5_000);
    assert.ok(reads >= 499, `${reads} reads: one after each poll`);
    assert.equal([...clock.pending.values()].filter((t) => t.ms === 5_000).length, 1, "the next poll is pending");
    const before = clock.cleared();
    render(null, cell);
    assert.equal([...clock.pending.values()].filter((t) => t.ms === 5_000).length, 0, "no poll after the page stops");
    assert.ok(clock.cleared() - before <= 2, `stopping cleared ${clock.cleared() - before} timers`);
    assert.equal(page.document.documentElement.dataset.liveRole, "off");
  } finally {
    clock.restore();
    options.requestAnimationFrame = raf;
    Object.assign(globalThis, { BroadcastChannel: channel, XMLHttpRequest: xhr });
    if (!hadDocument) delete (globalThis as { document?: unknown }).document;
    page.close();
  }
});
