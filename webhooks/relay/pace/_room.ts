// How many entries a worker holds at once (in flight and buffered), sized
// to its KV's round trip: while a take commits, the worker's slots go on
// using up what it holds, so it holds what they use in that time.

/** Entries a worker holds at most, however slow its KV. */
export const MAX_ROOM = 256;
/** The weight of the newest time in the running averages. */
const WEIGHT = 0.2;

/** A worker's measured take and attempt times, and the room they give. */
export class Pace {
  #concurrency: number;
  #takeMs: number | undefined;
  #attemptMs: number | undefined;

  /** @param concurrency the worker's attempts in flight at most */
  constructor(concurrency: number) {
    this.#concurrency = concurrency;
  }

  /** Notes how long one take took (its list, when it listed, and its commit). */
  took(ms: number): void {
    this.#takeMs = average(this.#takeMs, ms);
  }

  /** Notes how long one attempt took, from its start to its answer. */
  attempted(ms: number): void {
    this.#attemptMs = average(this.#attemptMs, ms);
  }

  /**
   * Entries to hold at most: the concurrency, and what the concurrency uses
   * up during one take; at least twice the concurrency, at most
   * {@linkcode MAX_ROOM} (or twice the concurrency, when that is more).
   */
  room(): number {
    const least = 2 * this.#concurrency;
    if (this.#takeMs === undefined || this.#attemptMs === undefined) return least;
    const during = Math.ceil(this.#concurrency * this.#takeMs / Math.max(this.#attemptMs, 0.01));
    return Math.max(least, Math.min(MAX_ROOM, this.#concurrency + during));
  }
}

function average(current: number | undefined, ms: number): number {
  return current === undefined ? ms : current + WEIGHT * (ms - current);
}
