/**
 * Query strings: `buildQuery` and `parseQuery`.
 *
 * @module
 */

import { fail, getWin, isUnsafeKey } from "./_doc.ts";
import { isArray, isObj, isStr } from "./is.ts";

/** A parsed query: one value per key, an array for a repeated key, `1` for a key without `=`. */
export type Query = Record<string, string | 1 | (string | 1)[]>;

/**
 * Builds a query string from key/value pairs. Keys and values go through
 * `encodeURIComponent`; an array value repeats the key; `null` and
 * `undefined` values are left out; other values are converted with
 * `String`. There is no leading `?`.
 *
 * @param object the key/value pairs
 * @returns the query string
 * @throws {TypeError} when `object` is not an object
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildQuery } from "./mod.ts";
 * assert.equal(buildQuery({ q: "a b&c", tag: ["x", "y"], skip: null }), "q=a%20b%26c&tag=x&tag=y");
 * ```
 */
export function buildQuery(object: Record<string, unknown>): string {
  if (!isObj(object)) fail("buildQuery", "object", "an object", object);
  const parts: string[] = [];
  for (const key of Object.keys(object)) {
    const value = object[key];
    for (const item of isArray(value) ? value : [value]) {
      if (item != null) {
        parts.push(
          encodeURIComponent(key) + "=" + encodeURIComponent(String(item)),
        );
      }
    }
  }
  return parts.join("&");
}

function decode(text: string): string {
  text = text.replace(/\+/g, " ");
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // malformed escape: keep it as written
  }
}

/**
 * Parses a query string into an object. A leading `?` (or anything up to
 * the first `?`) and a `#fragment` are ignored; `+` decodes to a space; a
 * key without `=` gets the number `1`; `a=` gets `""`; a repeated key gives
 * an array of its values in order. Keys `__proto__`, `constructor` and
 * `prototype` are dropped. Malformed `%` escapes are kept as written.
 *
 * @param str the query string (default: the current page's `location.search`)
 * @returns the parsed pairs
 * @throws {TypeError} when `str` is given but not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseQuery } from "./mod.ts";
 * assert.deepStrictEqual(parseQuery("?q=a+b&flag&t=1&t=2&e="), {
 *   q: "a b",
 *   flag: 1,
 *   t: ["1", "2"],
 *   e: "",
 * });
 * ```
 */
export function parseQuery(str?: string): Query {
  if (str === undefined) str = getWin().location?.search ?? "";
  if (!isStr(str)) fail("parseQuery", "str", "a string", str);
  const out: Query = {};
  const query = str.split("#")[0];
  for (const pair of query.slice(query.indexOf("?") + 1).split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    if (!key || isUnsafeKey(key)) continue;
    const value = eq < 0 ? 1 : decode(pair.slice(eq + 1));
    const old = Object.hasOwn(out, key) ? out[key] : undefined;
    out[key] = old === undefined ? value : isArray(old) ? [...old, value] : [old, value];
  }
  return out;
}
