/**
 * Animation frames: `onFrame` and `cancelFrame`. All listeners share one
 * `requestAnimationFrame` loop, which stops when none are left.
 *
 * @module
 */

import { fail, getWin } from "./_doc.ts";
import { isFunc } from "./is.ts";

/** A frame listener: called with the arguments given to `onFrame`, then the frame timestamp. */
// deno-lint-ignore no-explicit-any
export type FrameListener = (...args: any[]) => unknown;

const listeners: Map<FrameListener, [unknown, unknown[]]> = /* @__PURE__ */ new Map();
let loop: { win: Window; id: number } | undefined;

function tick(ts: number): void {
  const current = loop!;
  current.id = 0;
  for (const [fn, entry] of [...listeners]) {
    if (listeners.get(fn) !== entry) continue; // cancelled during this frame
    try {
      fn.apply(entry[0], [...entry[1], ts]);
    } catch (err) {
      // report without stopping the other listeners or the loop
      current.win.setTimeout(() => {
        throw err;
      });
    }
  }
  if (listeners.size && loop === current) {
    current.id = current.win.requestAnimationFrame(tick);
  } else if (loop === current) loop = undefined;
}

/**
 * Calls `fn` on every animation frame, with `this` = `scope` and the
 * arguments `(...args, timestamp)`, until `cancelFrame(fn)`. Calling it again
 * with the same `fn` replaces its scope and arguments.
 *
 * @param fn the listener
 * @param scope `this` for the calls (default: the window)
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
export function onFrame(fn: FrameListener, scope?: unknown, ...args: unknown[]): void {
  if (!isFunc(fn)) fail("onFrame", "fn", "a function", fn);
  const win = getWin();
  listeners.set(fn, [scope === undefined ? win : scope, args]);
  if (!loop) {
    loop = { win, id: 0 };
    loop.id = win.requestAnimationFrame(tick);
  }
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
  listeners.delete(fn);
  if (!listeners.size && loop) {
    if (loop.id) loop.win.cancelAnimationFrame(loop.id);
    loop = undefined;
  }
}
