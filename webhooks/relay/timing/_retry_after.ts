// `Retry-After` of a 429 or 503: seconds or an HTTP date, at most a day.

/** The longest `Retry-After` honoured: a longer one counts as this (a day). */
export const RETRY_AFTER_MAX_MS = 86_400_000;

const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const CLOCK = "\\d\\d:\\d\\d:\\d\\d";
// RFC 9110's HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms (asctime's time is GMT too).
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d\\d ${MONTH} \\d{4} ${CLOCK} GMT|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, \\d\\d-${MONTH}-\\d\\d ${CLOCK} GMT)$`,
);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${CLOCK} \\d{4}$`);

/**
 * `Retry-After` in ms from `now` (seconds or an HTTP date), at most
 * {@linkcode RETRY_AFTER_MAX_MS}; `undefined` when absent or neither (a
 * lenient date parse would read "soon 2099" as a date 73 years on).
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else if (HTTP_DATE.test(text)) ms = Date.parse(text) - now;
  else if (ASCTIME.test(text)) ms = Date.parse(`${text} GMT`) - now;
  else return undefined;
  return Number.isNaN(ms) ? undefined : Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms));
}
