/**
 * Events: `listen` and `processEvent`.
 *
 * @module
 */

import { fail, need } from "./_doc.ts";
import { isFunc } from "./is.ts";

/**
 * Adds an event listener.
 *
 * @param obj a DOM node, window, XMLHttpRequest or other event target
 * @param type the event type, for example `click`
 * @typeParam E the event type the listener takes (`MouseEvent`...; default `Event`)
 * @param fn the listener
 * @throws {TypeError} when `obj` is not an event target, `type` is not a string, or `fn` is not a function
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { listen, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const button = doc.createElement("button");
 * let clicks = 0;
 * listen(button, "click", () => clicks++);
 * button.click();
 * assert.equal(clicks, 1);
 * ```
 */
export function listen<E extends Event = Event>(
  obj: EventTarget,
  type: string,
  fn: (event: E) => unknown,
): void {
  if (!isFunc(obj?.addEventListener)) fail("obj", "an event target", obj);
  need(type, "stype");
  need(fn, "ffn");
  obj.addEventListener(type, fn as EventListener);
}

/**
 * Handles an event: prevents its default action when `prevent` is set and
 * stops its propagation when `stop` is set.
 *
 * @param e the event
 * @param prevent call `e.preventDefault()` (default `false`)
 * @param stop call `e.stopPropagation()` (default `false`)
 * @returns the event's target
 * @throws {TypeError} when `e` is not an event
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { listen, processEvent, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const link = doc.createElement("a");
 * let prevented = false;
 * listen(link, "click", (e) => {
 *   processEvent(e, true);
 *   prevented = e.defaultPrevented;
 * });
 * link.click();
 * assert.equal(prevented, true);
 * ```
 */
export function processEvent(
  e: Event,
  prevent = false,
  stop = false,
): EventTarget | null {
  if (!isFunc(e?.preventDefault)) fail("e", "an event", e);
  if (prevent) e.preventDefault();
  if (stop) e.stopPropagation();
  return e.target;
}
