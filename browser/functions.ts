/**
 * Functions and arguments: `args` turns an `arguments` object into an
 * array; `bind` binds a function's `this` with arguments before and after.
 *
 * @module
 */

import { fail, getWin, LONG, need } from "./_doc.ts";
import type { AnyFunction } from "./object.ts";

/**
 * Converts an `arguments` object (or any array-like) to an array.
 *
 * @param args an `arguments` object or other array-like
 * @returns a new array with the same items
 * @throws {TypeError} when `args` is not an object
 * @throws {RangeError} when `args.length` is above 1e7 (10,000,000): `{ length: 4e9 }` would fill 4e9 slots
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { args } from "./mod.ts";
 * function f(..._: unknown[]) {
 *   return args(arguments);
 * }
 * assert.deepStrictEqual(f(1, "a"), [1, "a"]);
 * ```
 */
export function args(args: ArrayLike<unknown>): unknown[] {
  need(args, "oargs");
  // Array.from would fill 4e9 slots of an array-like saying { length: 4e9 }
  if (args.length > LONG) fail("args.length", "at most 1e7", args.length, RangeError);
  return Array.from(args);
}

/**
 * Binds `fn` to `obj` with arguments placed before (`prefill`) and after
 * (`postfill`) the call's own arguments.
 *
 * @param fn the function to bind
 * @param obj `this` for the calls (default, also for `null`: the window)
 * @param prefill arguments placed before the call's arguments
 * @param postfill arguments placed after the call's arguments
 * @returns the bound function
 * @throws {TypeError} when `fn` is not a function or a fill is not an array
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bind } from "./mod.ts";
 * const join = bind(function (this: { sep: string }, ...parts: string[]) {
 *   return parts.join(this.sep);
 * }, { sep: "-" }, ["a"], ["z"]);
 * assert.equal(join("m"), "a-m-z");
 * ```
 */
export function bind(
  fn: AnyFunction,
  obj?: unknown,
  prefill: readonly unknown[] = [],
  postfill: readonly unknown[] = [],
): AnyFunction {
  need(fn, "ffn");
  need(prefill, "aprefill");
  need(postfill, "apostfill");
  return (...rest: unknown[]) => fn.call(obj ?? getWin(), ...prefill, ...rest, ...postfill);
}
