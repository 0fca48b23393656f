/**
 * The timers of the live hub, cleared all at once when it stops or changes
 * its way; a timer is forgotten once it fires, so a page that polls all day
 * keeps the one or two pending, not one for every tick since it opened.
 *
 * @module
 */

/** The pending timers of one owner. */
export class Timers {
  #pending = new Set<ReturnType<typeof setTimeout>>();

  /** Calls `fn` in `ms` milliseconds unless cleared first. */
  later(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      fn();
    }, ms);
    this.#pending.add(timer);
    return timer;
  }

  /** Clears one timer. */
  cancel(timer: ReturnType<typeof setTimeout>): void {
    clearTimeout(timer);
    this.#pending.delete(timer);
  }

  /** Clears every pending timer. */
  clear(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}
