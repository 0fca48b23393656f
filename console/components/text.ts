/**
 * Text cut to fit a page: on grapheme boundaries (`Intl.Segmenter`), so a
 * cut never splits an emoji, a flag or a letter and its accents, and never
 * leaves half a surrogate pair, which a page would show as U+FFFD.
 *
 * @module
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Drops a lone surrogate at either end (the trace of a cut made elsewhere
 * by UTF-16 units), and turns any other lone surrogate into U+FFFD.
 *
 * @param text any string
 * @returns the text, well formed
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wellFormed } from "./text.ts";
 * assert.equal(wellFormed("ok 😀".slice(0, 4)), "ok ");
 * ```
 */
export function wellFormed(text: string): string {
  return text.replace(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/, "").toWellFormed();
}

/**
 * Cuts `text` to at most `max` graphemes, ending with "…" when cut.
 *
 * @param text any string (a lone surrogate at either end is dropped)
 * @param max most graphemes kept, the ellipsis counted
 * @returns the text, whole or cut on a grapheme boundary
 * @throws {RangeError} when `max` is not a positive integer
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutText } from "./text.ts";
 * assert.equal(cutText("👍🏽👍🏽👍🏽", 2), "👍🏽…");
 * assert.equal(cutText("short", 10), "short");
 * ```
 */
export function cutText(text: string, max: number): string {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`Cannot cut text: 'max' must be a positive integer, got ${max}`);
  }
  const whole = wellFormed(text);
  if (whole.length <= max) return whole; // fewer units than max: fewer graphemes too
  let count = 0;
  let end = 0;
  for (const { index } of graphemes.segment(whole)) {
    if (count === max - 1) end = index;
    if (++count > max) return `${whole.slice(0, end)}…`;
  }
  return whole;
}
