// A worker's clock for its schedule (due times, leases, retries): the
// relay's `now`, except that it never steps back. A wall clock set back (an
// hour, say, by a correction) would otherwise leave every entry whose due
// key or lease the earlier clock wrote waiting that much longer: a retry due
// in 5 s due in an hour and 5 s. After a step back it goes on from where it
// was, at half the pace of `now`, until `now` has caught up with it, so it
// never runs ahead of `now` for long. A clock that stands still (a test's)
// or steps forward is passed through as it is.

/** The share of `now`'s pace at which the clock runs while it is ahead of `now`. */
const CATCH_UP = 0.5;

/**
 * `now`, never stepping back: after a step back, it runs on at half `now`'s pace until `now` reaches it.
 *
 * @param now the relay's clock (ms)
 * @returns a clock that never returns less than it returned before
 */
export function steadyClock(now: () => number): () => number {
  let last = -Infinity;
  let lastNow = NaN;
  let ahead = 0;
  return (): number => {
    const t = now();
    if (ahead > 0 && t > lastNow) ahead = Math.max(0, ahead - (t - lastNow) * (1 - CATCH_UP));
    lastNow = t;
    if (t + ahead < last) ahead = last - t;
    last = t + ahead;
    return last;
  };
}
