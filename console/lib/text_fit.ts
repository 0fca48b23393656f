/**
 * Text cut to fit a stored value: at most so many UTF-16 units (what a KV
 * value's size is counted in), cut between graphemes.
 *
 * @module
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The first `max` UTF-16 units of `text` or fewer, cut between two graphemes
 * (never inside a surrogate pair, an emoji sequence or a combining mark):
 * only the window around the cut is segmented, so a long text costs no more.
 */
export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const from = Math.max(0, max - 64);
  let end = from;
  for (const { index } of graphemes.segment(text.slice(from, max + 64))) {
    if (from + index > max) break;
    end = from + index;
  }
  // A grapheme longer than the window: at least never split a surrogate pair.
  if (end === from && from > 0) end = /[\uDC00-\uDFFF]/.test(text[max]) ? max - 1 : max;
  return text.slice(0, end);
}

/** `text` as a page echoes what an address held: its first `max` UTF-16 units (cut by {@linkcode cutAt}), then "…". */
export function echoed(text: string, max = 80): string {
  return text.length > max ? `${cutAt(text, max)}…` : text;
}
