/**
 * Strings: `capitalize` and `trim`.
 *
 * @module
 */

import { need } from "./_doc.ts";

/**
 * Capitalises the text: upper-cases its first character and leaves the rest
 * as it is.
 *
 * @param str the text
 * @returns the capitalised text
 * @throws {TypeError} when `str` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capitalize } from "./mod.ts";
 * assert.equal(capitalize("hello world"), "Hello world");
 * assert.equal(capitalize(""), "");
 * ```
 */
export function capitalize(str: string): string {
  need(str, "sstr");
  // the first code point: a letter beyond the BMP is two UTF-16 units
  return str.replace(/^./u, (c) => c.toUpperCase());
}

/**
 * Removes whitespace (and line terminators) from both ends.
 *
 * @param str the text
 * @returns the trimmed text
 * @throws {TypeError} when `str` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trim } from "./mod.ts";
 * assert.equal(trim("  a b \n"), "a b");
 * ```
 */
export function trim(str: string): string {
  need(str, "sstr");
  return str.trim();
}
