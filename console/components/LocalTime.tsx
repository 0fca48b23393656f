/**
 * A time as the reader reads it: the server writes it in UTC, readable and
 * naming its zone ({@linkcode utcText}), with ISO 8601 in `datetime`; in the
 * browser the component shows the reader's local time and how long ago,
 * kept current every 30 s, with the exact time on hover. Being rendered by
 * Preact, it stays right when an island re-renders it with a new time.
 *
 * @module
 */

import type { VNode } from "preact";
import { useLayoutEffect, useState } from "preact/hooks";

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [["day", 86_400], ["hour", 3_600], ["minute", 60]];

/**
 * How long ago (or ahead) `ms` is from `now`, in words ("5 minutes ago").
 *
 * @param ms a time (ms since the epoch)
 * @param now the present (ms since the epoch)
 * @returns the relative time in the reader's language
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ago } from "./LocalTime.tsx";
 * assert.equal(ago(0, 300_000), new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }).format(-5, "minute"));
 * ```
 */
export function ago(ms: number, now: number): string {
  const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  const seconds = Math.round((ms - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(seconds, "second");
}

/**
 * A time in the reader's local time, naming its zone: a local time alone reads as UTC beside the filters' "(UTC)",
 * and cannot be matched against a server's log.
 *
 * @param when a valid date
 * @returns the date and time in the reader's language and zone, with the zone's short name
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { localText } from "./LocalTime.tsx";
 * const text = localText(new Date(0));
 * assert.equal(text, new Date(0).toLocaleString(undefined, { timeZoneName: "short" }));
 * ```
 */
export function localText(when: Date): string {
  return when.toLocaleString(undefined, { timeZoneName: "short" });
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A time as the server writes it in a `<time>`, for a reader without script (the browser's script puts the local
 * time in its place): in UTC, to the second, naming the zone, the same in every language and on every server.
 *
 * @param iso a time in ISO 8601
 * @returns it as "29 Nov 2026, 18:16:47 UTC"; `iso` itself when it is no valid time
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utcText } from "./LocalTime.tsx";
 * assert.equal(utcText("2026-11-29T18:16:47.123Z"), "29 Nov 2026, 18:16:47 UTC");
 * assert.equal(utcText("not a time"), "not a time");
 * ```
 */
export function utcText(iso: string): string {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${when.getUTCDate()} ${MONTHS[when.getUTCMonth()]} ${when.getUTCFullYear()}, ` +
    `${two(when.getUTCHours())}:${two(when.getUTCMinutes())}:${two(when.getUTCSeconds())} UTC`;
}

/** How far ahead of the reader's clock a time may be and still read as "now" (the server's clock may run ahead). */
const SKEW_MS = 60_000;

const tickers = new Set<(now: number) => void>();
let clock: ReturnType<typeof setInterval> | undefined;

/** The present, updated every 30 s while mounted (`null` on the server and before the first effect). */
function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  // A layout effect: it runs as the render commits, so a time an island adds to a live page (a new row) is shown
  // before the next frame, not left as ISO (hidden) until after it.
  useLayoutEffect(() => {
    setNow(Date.now());
    tickers.add(setNow);
    clock ??= setInterval(() => {
      const at = Date.now();
      for (const tick of tickers) tick(at);
    }, 30_000);
    return () => {
      tickers.delete(setNow);
      if (tickers.size === 0) {
        clearInterval(clock);
        clock = undefined;
      }
    };
  }, []);
  return now;
}

/** Props of {@linkcode LocalTime}. */
export interface LocalTimeProps {
  /** ISO 8601. */
  iso: string;
}

/** A `<time>` in local time with how long ago, once in the browser. */
export function LocalTime({ iso }: LocalTimeProps): VNode {
  const now = useNow();
  const when = new Date(iso);
  const valid = !Number.isNaN(when.getTime());
  // The present as this render happens, not as the clock last ticked (up to 30 s ago, or the page's load): a time
  // that came since would read "in 13 seconds". And a few seconds the server's clock runs ahead read as now.
  const present = now === null ? 0 : Math.max(now, Date.now());
  const at = valid && when.getTime() > present && when.getTime() - present < SKEW_MS ? present : when.getTime();
  // On the server and before the first effect, the same text on both sides (hydration keeps it) and readable without
  // script.
  const text = now === null || !valid ? utcText(iso) : `${localText(when)} (${ago(at, present)})`;
  return (
    <time
      dateTime={iso}
      title={valid && now !== null ? when.toISOString() : undefined}
      data-local={now === null ? undefined : ""}
    >
      {text}
    </time>
  );
}
