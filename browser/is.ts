/**
 * Type tests. Each takes a value of any type and returns a boolean.
 *
 * @module
 */

/**
 * Tests whether `obj` is an array (it is `Array.isArray`).
 *
 * @param obj any value
 * @returns `true` for arrays
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isArray } from "./mod.ts";
 * assert.equal(isArray([1]), true);
 * assert.equal(isArray({ length: 1 }), false);
 * ```
 */
export const isArray: (obj: unknown) => obj is unknown[] = Array.isArray;

/**
 * Tests whether `obj` is a boolean primitive.
 *
 * @param obj any value
 * @returns `true` for `true` and `false`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBool } from "./mod.ts";
 * assert.equal(isBool(false), true);
 * assert.equal(isBool(0), false);
 * ```
 */
export function isBool(obj: unknown): obj is boolean {
  return typeof obj === "boolean";
}

/**
 * Tests whether `obj` is a DOM element or a document fragment, from any
 * window (checked by `nodeType` 1 or 11, so happy-dom nodes count too).
 *
 * @param obj any value
 * @returns `true` for elements and document fragments
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { isDom } from "./mod.ts";
 * const doc = new Window().document;
 * assert.equal(isDom(doc.createElement("div")), true);
 * assert.equal(isDom(doc.createDocumentFragment()), true);
 * assert.equal(isDom(doc.createTextNode("x")), false);
 * assert.equal(isDom({ nodeType: "1" }), false);
 * ```
 */
export function isDom(obj: unknown): obj is HTMLElement | DocumentFragment {
  const type = (obj as Node | null)?.nodeType;
  return type === 1 || type === 11;
}

/**
 * Tests whether `obj` is a function (classes included).
 *
 * @param obj any value
 * @returns `true` for functions
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isFunc } from "./mod.ts";
 * assert.equal(isFunc(() => 1), true);
 * assert.equal(isFunc("alert"), false);
 * ```
 */
// deno-lint-ignore ban-types
export function isFunc(obj: unknown): obj is Function {
  return typeof obj === "function";
}

/**
 * Tests whether `obj` is `null`.
 *
 * @param obj any value
 * @returns `true` for `null` only
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isNull } from "./mod.ts";
 * assert.equal(isNull(null), true);
 * assert.equal(isNull(undefined), false);
 * ```
 */
export function isNull(obj: unknown): obj is null {
  return obj === null;
}

/**
 * Tests whether `obj` is a number primitive other than `NaN`
 * (`Infinity` counts).
 *
 * @param obj any value
 * @returns `true` for numbers except `NaN`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isNum } from "./mod.ts";
 * assert.equal(isNum(1.5), true);
 * assert.equal(isNum(NaN), false);
 * assert.equal(isNum("1"), false);
 * ```
 */
export function isNum(obj: unknown): obj is number {
  return typeof obj === "number" && obj === obj;
}

/**
 * Tests whether `obj` is an object: `typeof` is `"object"` and it is not
 * `null` (arrays, dates and DOM nodes count; functions do not).
 *
 * @param obj any value
 * @returns `true` for non-null objects
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isObj } from "./mod.ts";
 * assert.equal(isObj({}), true);
 * assert.equal(isObj([]), true);
 * assert.equal(isObj(null), false);
 * ```
 */
export function isObj(obj: unknown): obj is Record<string, unknown> {
  return typeof obj === "object" && obj !== null;
}

/**
 * Tests whether `obj` is a string primitive.
 *
 * @param obj any value
 * @returns `true` for strings
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStr } from "./mod.ts";
 * assert.equal(isStr(""), true);
 * assert.equal(isStr(1), false);
 * ```
 */
export function isStr(obj: unknown): obj is string {
  return typeof obj === "string";
}

/**
 * Tests whether `obj` is `undefined`.
 *
 * @param obj any value
 * @returns `true` for `undefined` only
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isUnd } from "./mod.ts";
 * assert.equal(isUnd(undefined), true);
 * assert.equal(isUnd(null), false);
 * ```
 */
export function isUnd(obj: unknown): obj is undefined {
  return obj === undefined;
}
