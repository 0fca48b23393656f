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

/** ISO 8601 with its zone: the date (a year of four digits, or six with a sign), the time, and `Z` or an offset. */
const ZONED = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * The time `iso` names, when it is an ISO 8601 time with its zone (`Z` or an offset) on a day its month has; a time
 * without a zone would be read in whichever zone the server or the reader is in, and `Date` reads many strings that
 * are no such time ("1" as 2001, 30 February as 2 March).
 *
 * @param iso a string meant as a time
 * @returns the time, or `null`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { zonedTime } from "./LocalTime.tsx";
 * assert.equal(zonedTime("2026-11-29T20:16:47+02:00")?.toISOString(), "2026-11-29T18:16:47.000Z");
 * assert.equal(zonedTime("2026-11-29T18:16:47"), null);
 * ```
 */
export function zonedTime(iso: string): Date | null {
  const match = ZONED.exec(iso);
  const when = match ? new Date(iso) : null;
  if (!match || !when || Number.isNaN(when.getTime())) return null;
  const [month, date] = [Number(match[2]) - 1, Number(match[3])];
  const day = new Date(0);
  day.setUTCFullYear(Number(match[1]), month, date);
  return day.getUTCMonth() === month && day.getUTCDate() === date ? when : null;
}

/**
 * A time as the server writes it in a `<time>`, for a reader without script (the browser's script puts the local
 * time in its place): in UTC, to the second, naming the zone, the same in every language and on every server.
 *
 * @param iso a time in ISO 8601, with its zone
 * @returns it as "29 Nov 2026, 18:16:47 UTC"; `iso` itself when it is no such time ({@linkcode zonedTime})
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utcText } from "./LocalTime.tsx";
 * assert.equal(utcText("2026-11-29T18:16:47.123Z"), "29 Nov 2026, 18:16:47 UTC");
 * assert.equal(utcText("0005-01-01T00:00:00Z"), "1 Jan 0005, 00:00:00 UTC");
 * assert.equal(utcText("2026-11-29T18:16:47"), "2026-11-29T18:16:47");
 * assert.equal(utcText("not a time"), "not a time");
 * ```
 */
export function utcText(iso: string): string {
  const when = zonedTime(iso);
  if (!when) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  const year = when.getUTCFullYear();
  const shownYear = `${year < 0 ? "-" : ""}${String(Math.abs(year)).padStart(4, "0")}`;
  return `${when.getUTCDate()} ${MONTHS[when.getUTCMonth()]} ${shownYear}, ` +
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
  /** ISO 8601 with its zone (anything else is shown as given). */
  iso: string;
}

/** A `<time>` in local time with how long ago, once in the browser. */
export function LocalTime({ iso }: LocalTimeProps): VNode {
  const now = useNow();
  // A string that is no ISO time with its zone is shown as given: in no zone it does not name.
  const when = zonedTime(iso);
  // The present as this render happens, not as the clock last ticked (up to 30 s ago, or the page's load): a time
  // that came since would read "in 13 seconds". And a few seconds the server's clock runs ahead read as now.
  const present = now === null ? 0 : Math.max(now, Date.now());
  const ms = when?.getTime() ?? 0;
  const at = ms > present && ms - present < SKEW_MS ? present : ms;
  // On the server and before the first effect, the same text on both sides (hydration keeps it) and readable without
  // script.
  const text = now === null || !when ? utcText(iso) : `${localText(when)} (${ago(at, present)})`;
  return (
    <time
      dateTime={iso}
      title={when && now !== null ? when.toISOString() : undefined}
      data-local={now === null ? undefined : ""}
    >
      {text}
    </time>
  );
}

/**
 * A stored time (ms since the epoch) in ISO 8601, or `null` when it is no valid date (a record from elsewhere, a
 * hand-edited KV): `new Date(x).toISOString()` throws a RangeError for it, and the page answered 500.
 *
 * @param ms the stored time
 * @returns ISO 8601 in UTC, or `null`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { storedIso } from "./LocalTime.tsx";
 * assert.equal(storedIso(0), "1970-01-01T00:00:00.000Z");
 * assert.equal(storedIso(8.64e15 + 1), null);
 * assert.equal(storedIso("yesterday"), null);
 * ```
 */
export function storedIso(ms: unknown): string | null {
  if (typeof ms !== "number") return null;
  const when = new Date(ms);
  return Number.isNaN(when.getTime()) ? null : when.toISOString();
}

/** A stored time (ms since the epoch) as a {@linkcode LocalTime}, or "unknown" when it is no valid date. */
export function StoredTime({ ms }: { ms: unknown }): VNode {
  const iso = storedIso(ms);
  return iso === null ? <span class="time-unknown">unknown</span> : <LocalTime iso={iso} />;
}
