/**
 * What the live table says aloud: a short message in a polite live region
 * as deliveries arrive ("3 new deliveries since this page opened"), at most
 * one every few seconds, a burst told once it is counted. The table is no
 * live region itself: its rows' times, kept current every 30 s, would be
 * read out unasked, every row each time.
 *
 * @module
 */

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** Least time between two messages. */
export const NEWS_EVERY_MS = 5_000;

/**
 * The message for `total` new deliveries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newsText } from "./_news.ts";
 * assert.equal(newsText(1), "1 new delivery since this page opened");
 * assert.equal(newsText(3), "3 new deliveries since this page opened");
 * ```
 */
export function newsText(total: number): string {
  return `${total} new deliver${total === 1 ? "y" : "ies"} since this page opened`;
}

/** The live region's text, and what tells it of `added` new deliveries. */
export function useNews(): [string, (added: number) => void] {
  const [text, setText] = useState("");
  const state = useRef<{ total: number; pending: boolean; timer?: ReturnType<typeof setTimeout> }>({
    total: 0,
    pending: false,
  });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  const add = useCallback((added: number) => {
    const s = state.current;
    s.total += added;
    const say = () => {
      setText(newsText(s.total));
      s.pending = false;
      s.timer = setTimeout(() => {
        s.timer = undefined;
        if (s.pending) say();
      }, NEWS_EVERY_MS);
    };
    if (s.timer === undefined) say();
    else s.pending = true;
  }, []);
  return [text, add];
}
