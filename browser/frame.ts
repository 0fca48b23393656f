/**
 * Animation frames: `onFrame` and `cancelFrame`. All listeners share one
 * `requestAnimationFrame` loop, which stops when none are left.
 *
 * @module
 */

import { getWin, need } from "./_doc.ts";

/** A frame listener: called with the arguments given to `onFrame`, then the frame timestamp. */
// deno-lint-ignore no-explicit-any
export type FrameListener = (...args: any[]) => unknown;

const listeners: Map<FrameListener, [unknown, unknown[]]> = /* @__PURE__ */ new Map();
let loopWin: Window | undefined;
let loopId = 0;

function tick(ts: number): void {
  // the next frame is booked first, so a throwing listener cannot stop the loop
  loopId = loopWin!.requestAnimationFrame(tick);
  for (const [fn, [scope, args]] of [...listeners]) {
    if (listeners.has(fn)) fn.call(scope, ...args, ts);
  }
}

/**
 * Calls `fn` on every animation frame, with `this` = `scope` and the
 * arguments `(...args, timestamp)`, until `cancelFrame(fn)`. Calling it again
 * with the same `fn` replaces its scope and arguments. Listeners run in the
 * order they were added; one that throws skips the rest for that frame only.
 * The shared loop runs on the current window (see `setDoc`): after `setDoc`
 * with another document, the next `onFrame` moves it to that one's window.
 *
 * @param fn the listener
 * @param scope `this` for the calls (default, also for `null`: the window)
 * @param args arguments passed before the frame timestamp
 * @throws {TypeError} when `fn` is not a function
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { cancelFrame, onFrame, setDoc } from "./mod.ts";
 * const win = new Window();
 * setDoc(win.document as unknown as Document);
 * const seen = await new Promise<unknown[]>((resolve) => {
 *   function step(this: { n: number }, label: string, ts: number) {
 *     cancelFrame(step);
 *     resolve([this.n, label, typeof ts]);
 *   }
 *   onFrame(step, { n: 1 }, "tick");
 * });
 * assert.deepStrictEqual(seen, [1, "tick", "number"]);
 * await win.happyDOM.close();
 * ```
 */
export function onFrame(
  fn: FrameListener,
  scope?: unknown,
  ...args: unknown[]
): void {
  need(fn, "ffn");
  const win = getWin();
  // start the loop, or move it to the window of a document set since (that one may be closed); without
  // a window (requestAnimationFrame missing) this throws before anything is kept or stopped
  if (loopWin != win) {
    const id = win.requestAnimationFrame(tick);
    loopWin?.cancelAnimationFrame(loopId);
    loopId = id;
    loopWin = win;
  }
  listeners.set(fn, [scope ?? win, args]);
}

/**
 * Stops calling `fn` on animation frames. Cancelling a function that is not
 * listening does nothing. The shared loop stops with its last listener.
 *
 * @param fn a listener given to `onFrame`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { cancelFrame, onFrame, setDoc } from "./mod.ts";
 * const win = new Window();
 * setDoc(win.document as unknown as Document);
 * let calls = 0;
 * const count = () => calls++;
 * onFrame(count);
 * cancelFrame(count);
 * await new Promise((r) => setTimeout(r, 50));
 * assert.equal(calls, 0);
 * await win.happyDOM.close();
 * ```
 */
export function cancelFrame(fn: FrameListener): void {
  if (listeners.delete(fn) && !listeners.size) { // it had a listener: the loop runs
    loopWin!.cancelAnimationFrame(loopId);
    loopWin = undefined;
  }
}
