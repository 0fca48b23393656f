/**
 * Deep paths: `get` reads a value at a path (inherited members included,
 * never writing), `set` writes one through own plain objects and arrays
 * only, never through `__proto__`, `constructor` or `prototype`.
 *
 * @module
 */

import { fail, isPlain, isUnsafeKey, need } from "./_doc.ts";
import { isArray, isStr } from "./is.ts";

/** A deep path: `"a.b.c"`, a single key, or an array of keys. */
export type Path = string | number | readonly (string | number)[];

/** The property keys of a path, each converted with `String` as a write would convert it. */
function keysOf(path: Path): string[] {
  return isStr(path)
    ? path.split(".")
    : isArray(path) || typeof path === "number"
    ? [path].flat().map(String)
    : fail("path", "a string, number or array", path);
}

/**
 * Reads the value at a deep path. It only reads: like a property access, it
 * follows inherited members too (`get(el, "style.color")`).
 *
 * @param obj the object to read
 * @param path `"a.b.c"`, one key, or an array of keys
 * @param def returned when the value is `undefined` or the path breaks off
 * @returns the value found, or `def`
 * @throws {TypeError} when `path` is not a string, number or array
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { get } from "./mod.ts";
 * const data = { a: { b: [10, 20] } };
 * assert.equal(get(data, "a.b.1"), 20);
 * assert.equal(get(data, ["a", "x", "y"], "none"), "none");
 * ```
 */
// deno-lint-ignore no-explicit-any
export function get(obj: unknown, path: Path, def?: unknown): any {
  // past a null or undefined step the value stays undefined, which gives def
  for (const key of keysOf(path)) obj = (obj as Record<string, unknown> | null)?.[key];
  return obj === undefined ? def : obj;
}

/**
 * Sets a value at a deep path, creating plain objects along the way. The walk
 * follows only own plain objects and arrays: anything else in the way (a
 * primitive, a class instance, a function, an inherited value such as a
 * method of `Object.prototype`) is replaced by a fresh own plain object, so
 * the write lands in `obj` or in data it owns. Each key is converted with
 * `String` before it is checked, and a path with a `__proto__`,
 * `constructor` or `prototype` key writes nothing, and so does an empty
 * path. With `conditional`, the value is written only when the path holds
 * `undefined`.
 *
 * @param obj the object to write into
 * @param path `"a.b.c"`, one key, or an array of keys
 * @param val the value to set
 * @param conditional set only when no value is present (default `false`)
 * @returns `obj`
 * @throws {TypeError} when `obj` is not an object or `path` is not a string, number or array
 * @throws {RangeError} when the path walks through an array's `length` (it cannot become an object)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { set } from "./mod.ts";
 * const o: Record<string, unknown> = {};
 * set(o, "a.b", 1);
 * set(o, "a.b", 2, true);
 * assert.deepStrictEqual(o, { a: { b: 1 } });
 * set(o, "__proto__.polluted", true);
 * set(o, "toString.polluted", true); // an own object replaces the inherited method
 * assert.equal(({} as Record<string, unknown>).polluted, undefined);
 * assert.equal(typeof o.toString, "object");
 * ```
 */
export function set<T extends object>(
  obj: T,
  path: Path,
  val: unknown,
  conditional = false,
  // deno-lint-ignore no-explicit-any
): T & Record<string, any> {
  need(obj, "oobj");
  const keys = keysOf(path);
  if (!keys.length || keys.some(isUnsafeKey)) return obj;
  let cur = obj as Record<string, unknown>;
  const last = keys.pop()!;
  for (const key of keys) {
    const next = cur[key];
    cur = (Object.hasOwn(cur, key) && (isArray(next) || isPlain(next)) ? next : cur[key] = {}) as Record<
      string,
      unknown
    >;
  }
  if (!conditional || cur[last] === undefined) cur[last] = val;
  return obj;
}
