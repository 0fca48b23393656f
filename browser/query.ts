/**
 * Query strings: `buildQuery` and `parseQuery`.
 *
 * @module
 */

import { getWin, isUnsafeKey, LONG, need } from "./_doc.ts";
import { isArray } from "./is.ts";

/** A parsed query: one value per key, an array for a repeated key, `1` for a key without `=`. */
export type Query = Record<string, string | 1 | (string | 1)[]>;

/**
 * Builds a query string from key/value pairs. Keys and values go through
 * `encodeURIComponent`; an array value repeats the key for each of its
 * items (holes left out; an array longer than 1e7 is read by its own values,
 * so one item at index 4e9 is one item); `null` and
 * `undefined` values are left out; other values are converted with
 * `String` (a lone surrogate becomes U+FFFD). There is no leading `?`.
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
export function buildQuery(object: object): string {
  need(object, "oobject");
  const parts: string[] = [];
  for (const key of Object.keys(object)) {
    const value = (object as Record<string, unknown>)[key];
    const list = isArray(value) ? value : [value];
    // as text, well formed: a lone surrogate (text cut mid-emoji) becomes U+FFFD, not a URIError
    const name = encodeURIComponent(key.toWellFormed()) + "=";
    // a hole is undefined, left out; a long array by its own items: one at 4e9 is one item, not 4e9 steps
    // (not each(): its callback call would see these closures besides the user's, and its loop slow down twofold)
    for (const item of list.length > LONG ? Object.values(list) : list) {
      if (item != null) parts.push(name + encodeURIComponent(String(item).toWellFormed()));
    }
  }
  return parts.join("&");
}

/**
 * Parses a query string into an object. A leading `?` (or a URL's part
 * before its query: anything up to a first `?` that no `=` or `&` comes
 * before) and a `#fragment` are ignored; `+` decodes to a space; a
 * key without `=` gets the number `1`; `a=` gets `""`; a repeated key gives
 * an array of its values in order. Keys `__proto__`, `constructor` and
 * `prototype` are dropped. Malformed escapes never throw: an invalid `%`
 * sequence is kept as written, broken UTF-8 becomes U+FFFD.
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
  need(str ??= getWin().location?.search ?? "", "sstr");
  // a URL's part before its "?" goes; a "?" after a "=" or "&" is a value's (next=/x?y=1)
  const query = str.replace(/^[^?#=&]*\?|#[^]*/g, "");
  // URLSearchParams skips exactly the empty pairs, so its n-th entry is the n-th non-empty pair
  // (the "&" it is given first keeps a leading "?" of the query a key, as in every later pair)
  const pairs = query.split("&").filter(Boolean);
  const out: Query = {};
  let i = 0;
  for (const [key, text] of new URLSearchParams("&" + query)) {
    const value = pairs[i++].includes("=") ? text : 1;
    const had = out[key];
    // values are strings or 1, so an array is one this loop made: push keeps repeats linear
    if (key && !isUnsafeKey(key)) {
      isArray(had) ? had.push(value) : out[key] = Object.hasOwn(out, key) ? [had, value] : value;
    }
  }
  return out;
}
