/**
 * Objects, arrays and functions: `args`, `bind`, `clone`, `merge`, `each`,
 * `extend`, `get`, `set`, `remix`. None of them writes a `__proto__`,
 * `constructor` or `prototype` key, a key is checked after it is turned
 * into the property key it is written as, and `set` and `merge` write only
 * into the target and the own plain objects they walk or create, so
 * untrusted data cannot pollute prototypes. `clone` and `merge` refuse
 * nesting deeper than 1,000 levels with a `RangeError`.
 *
 * @module
 */

import { fail, isPlain, isUnsafeKey, LONG, need } from "./_doc.ts";
import { isArray, isObj, isStr } from "./is.ts";

/** Any function or constructor, as `bind` and `extend` take. */
// deno-lint-ignore no-explicit-any
export type AnyFunction = (this: any, ...args: any[]) => any;

/** A class or a constructor function, as `extend` takes. */
// deno-lint-ignore no-explicit-any
export type AnyClass = AnyFunction | (abstract new (...args: any[]) => unknown);

/** Options of {@linkcode merge}. */
export interface MergeOptions {
  /**
   * Merge into a deep clone of `mergeTo` instead of augmenting it (default
   * `false`). Only plain objects and arrays are cloned (as {@linkcode clone}
   * does): a class instance given as `mergeTo` is augmented as it is.
   */
  clone?: boolean;
  /** Copy top-level properties only (default `false`: nested plain objects are merged). */
  shallow?: boolean;
}

/**
 * How deep `clone` and `merge` go (SPEC's exports are fixed, so this is not
 * one): deeper nesting throws a `RangeError` naming the limit, well before
 * any browser's stack would overflow.
 */
const MAX_DEPTH = 1000;

/** Throws the RangeError of nesting deeper than MAX_DEPTH. */
function tooDeep(depth: number, value: unknown): void {
  if (depth > MAX_DEPTH) fail("obj", "nested at most 1000 levels deep", value, RangeError);
}

type Dict = Record<string, unknown>;

function copy(
  value: unknown,
  deep: boolean,
  seen: Map<unknown, unknown>,
  depth: number,
): unknown {
  const list = isArray(value);
  if (!list && !isPlain(value)) return value; // primitives as they are; dates, class instances, nodes: shared
  if (seen.has(value)) return seen.get(value);
  tooDeep(depth++, value);
  // a null prototype stays null: a lookup by `in` in the copy finds the data only, as in the original
  // (`__proto__:` in a literal sets the prototype, as Object.create does, in a few bytes less)
  // an array made at its length: filled by own keys below, it is as fast as one pushed to (setting the length after
  // was half as fast), and a hole stays a hole
  const out: Record<string, unknown> = list
    ? Array(value.length) as never
    : { __proto__: Object.getPrototypeOf(value) };
  seen.set(value, out);
  // own keys, for arrays too: a hole stays a hole, and an array holding one item at 4e9 is one item, not 4e9
  for (const key of Object.keys(value)) {
    if (!isUnsafeKey(key)) out[key] = deep ? copy((value as Dict)[key], deep, seen, depth) : (value as Dict)[key];
  }
  return out;
}

/**
 * Clones an object. Arrays and plain objects (prototype `Object.prototype`
 * or `null`, which the copy keeps) are copied, deeply unless `shallow`, and cycles are kept (an
 * array's own items, so a sparse array's holes stay holes); other
 * objects (dates, maps, class instances, DOM nodes) are shared, and
 * primitives are returned as they are. `__proto__`, `constructor` and
 * `prototype` keys are left out.
 *
 * @param obj the value to clone
 * @param shallow copy the top level only (default `false`)
 * @returns the clone
 * @throws {RangeError} when `obj` is nested deeper than 1,000 levels
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clone } from "./mod.ts";
 * const src = { a: { b: [1, 2] } };
 * const deep = clone(src);
 * assert.deepStrictEqual(deep, src);
 * assert.notEqual(deep.a, src.a);
 * assert.equal(clone(src, true).a, src.a);
 * ```
 */
export function clone<T>(obj: T, shallow = false): T {
  return copy(obj, !shallow, new Map(), 0) as T;
}

/**
 * Merges the own properties of `mergeFrom` into `mergeTo`. By default nested
 * plain objects are merged recursively and other values (arrays too) are
 * copied over as clones. `__proto__`, `constructor` and `prototype` keys are
 * skipped. Only own plain objects of `mergeTo` are merged into: an inherited
 * value is replaced by an own copy, never written into. A `null` or
 * `undefined` `mergeFrom` merges nothing.
 *
 * @param mergeTo the object to merge into
 * @param mergeFrom the object to merge from
 * @param options `clone`: merge into a clone of `mergeTo`; `shallow`: top level only
 * @returns `mergeTo`, or its merged clone with `options.clone`
 * @throws {TypeError} when `mergeTo` is not an object, or `mergeFrom` is neither an object nor absent
 * @throws {RangeError} when the merge goes deeper than 1,000 levels
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { merge } from "./mod.ts";
 * const to = { a: { x: 1 }, k: 1 };
 * merge(to, { a: { y: 2 } });
 * assert.deepStrictEqual(to, { a: { x: 1, y: 2 }, k: 1 });
 * const copy = merge(to, { k: 2 }, { clone: true });
 * assert.equal(copy.k, 2);
 * assert.equal(to.k, 1);
 * ```
 */
export function merge<T extends object, U extends object = T>(
  mergeTo: T,
  mergeFrom?: U | null,
  options: MergeOptions = {},
): T & U {
  need(mergeTo, "omergeTo");
  need(mergeFrom, "OmergeFrom");
  need(options, "ooptions");
  const target = options.clone ? clone(mergeTo) : mergeTo;
  if (mergeFrom) {
    mergeInto(target as Record<string, unknown>, mergeFrom as Record<string, unknown>, !options.shallow, 0);
  }
  return target as T & U;
}

function mergeInto(
  to: Record<string, unknown>,
  from: Record<string, unknown>,
  deep: boolean,
  depth: number,
): void {
  tooDeep(depth++, from);
  for (const key of Object.keys(from)) {
    const value = from[key];
    if (isUnsafeKey(key)) continue;
    if (deep && isPlain(value) && Object.hasOwn(to, key) && isPlain(to[key])) {
      mergeInto(to[key] as Record<string, unknown>, value, deep, depth);
    } else {
      to[key] = deep ? clone(value) : value;
    }
  }
}

/**
 * Calls `fn(value, index, obj)` for each item of an array or array-like
 * (index a number), or `fn(value, key, obj)` for each own enumerable key of
 * an object. An array-like is an object whose `length` is a whole number
 * from 0 to 2³² − 1 and that holds an item at `length - 1` (a `NodeList`,
 * `arguments`, `{ length: 1, 0: "a" }`); any other object, `{ length: 1e8 }`
 * included, is walked by its keys. Up to 10,000,000 (1e7) long, every index
 * is visited, holes included (as `undefined`); a longer array or array-like
 * is walked by its own index keys below its length, in order, so its holes
 * are skipped and one item at index 4e9 is one call, not 4e9.
 *
 * @param obj an array, array-like or object
 * @param fn called with value, index or key, and `obj`
 * @throws {TypeError} when `obj` is not an object or `fn` is not a function
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { each } from "./mod.ts";
 * const seen: unknown[] = [];
 * each(["a", "b"], (v, i) => seen.push(i, v));
 * each({ k: 1 }, (v, k) => seen.push(k, v));
 * assert.deepStrictEqual(seen, [0, "a", 1, "b", "k", 1]);
 * ```
 */
export function each<A extends ArrayLike<unknown>>(
  obj: A,
  fn: (value: A[number], index: number, obj: A) => unknown,
): void;
/**
 * Calls `fn(value, key, obj)` for each own enumerable key of an object.
 *
 * @param obj the object
 * @param fn called with value, key and `obj`
 * @throws {TypeError} when `obj` is not an object or `fn` is not a function
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { each } from "./mod.ts";
 * const seen: unknown[] = [];
 * each({ a: 1, b: 2 }, (v, k) => seen.push(k, v));
 * assert.deepStrictEqual(seen, ["a", 1, "b", 2]);
 * ```
 */
export function each<O extends object>(
  obj: O,
  fn: (value: O[keyof O], key: string, obj: O) => unknown,
): void;
export function each(
  obj: Record<string, unknown>,
  fn: (value: unknown, index: never, obj: object) => unknown,
): void {
  need(obj, "oobj");
  need(fn, "ffn");
  const n = obj.length as number;
  if (isArray(obj) || n === n >>> 0 && (!n || n - 1 in obj)) {
    if (n > LONG) {
      // by its own index keys (ascending): an array holding one item at 4e9 is one call, not 4e9 steps
      for (const key of Object.keys(obj)) if ((+key >>> 0) + "" === key && +key < n) fn(obj[key], +key as never, obj);
    } else for (let i = 0; i < n; i++) fn(obj[i], i as never, obj);
  } else for (const key of Object.keys(obj)) fn(obj[key], key as never, obj);
}

/**
 * Makes class (or constructor function) `target` extend `source`: instances
 * of `target` inherit `source`'s prototype methods and `target` inherits its
 * static members. Works with ES classes, whose `prototype` cannot be
 * reassigned. Methods in `methods` are then added to `target.prototype`
 * (`__proto__`, `constructor` and `prototype` names are skipped).
 *
 * @param target the class that inherits
 * @param source the class inherited from
 * @param methods methods to add to `target.prototype`
 * @throws {TypeError} when `target` or `source` is not a function (or class), or `methods` is not an object
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extend } from "./mod.ts";
 * class Animal { legs() { return 4; } }
 * function Dog(this: object) {}
 * extend(Dog, Animal, { bark() { return "woof"; } });
 * // deno-lint-ignore no-explicit-any
 * const dog = new (Dog as any)();
 * assert.equal(dog.legs(), 4);
 * assert.equal(dog.bark(), "woof");
 * assert.equal(dog instanceof Animal, true);
 * ```
 */
export function extend(
  target: AnyClass,
  source: AnyClass,
  methods?: Record<string, unknown> | null,
): void {
  need(target, "ctarget");
  need(source, "csource");
  need(methods, "Omethods");
  Object.setPrototypeOf(target.prototype, source.prototype);
  Object.setPrototypeOf(target, source);
  for (const key in methods) {
    if (!isUnsafeKey(key)) target.prototype[key] = methods![key];
  }
}

/**
 * Picks keys from `obj` into a new object. For each own key `k` of `keys`, a
 * string value renames it (`out[keys[k]] = obj[k]`); any other value keeps
 * the name (`out[k] = obj[k]`).
 *
 * @param obj the source object
 * @param keys the wanted keys, with new names as string values
 * @returns a new object, or `false` when `obj` or `keys` is not an object
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { remix } from "./mod.ts";
 * const user = { id: 7, name: "Ada", secret: "x" };
 * assert.deepStrictEqual(remix(user, { id: "userId", name: true }), { userId: 7, name: "Ada" });
 * assert.equal(remix(null, {}), false);
 * ```
 */
export function remix(
  obj: unknown,
  keys: Record<string, unknown>,
): Record<string, unknown> | false {
  if (!isObj(obj) || !isObj(keys)) return false;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(keys)) {
    const name = isStr(keys[key]) ? keys[key] as string : key;
    if (!isUnsafeKey(name)) out[name] = obj[key];
  }
  return out;
}
