// How many entries a worker holds at once (in flight and buffered), sized
// to its KV's round trip: while a take commits, the worker's slots go on
// using up what it holds, so it holds what they use in that time; but no
// more than they start while the leases of those taken still allow it.

/** Entries a worker holds at most, however slow its KV. */
export const MAX_ROOM = 256;
/** The weight of the newest time in the running averages. */
const WEIGHT = 0.2;

/** A worker's measured take, attempt and slot times, and the room they give. */
export class Pace {
  #concurrency: number;
  #startWithinMs: number;
  #takeMs: number | undefined;
  #attemptMs: number | undefined;
  #turnMs: number | undefined;

  /**
   * @param concurrency the worker's attempts in flight at most
   * @param startWithinMs how long after its take a buffered entry may still start (its lease less its attempt and margin)
   */
  constructor(concurrency: number, startWithinMs: number) {
    this.#concurrency = concurrency;
    this.#startWithinMs = startWithinMs;
  }

  /** Notes how long one take took (its list, when it listed, and its commit). */
  took(ms: number): void {
    this.#takeMs = average(this.#takeMs, ms);
  }

  /** Notes how long one attempt took, from its start to its answer. */
  attempted(ms: number): void {
    this.#attemptMs = average(this.#attemptMs, ms);
  }

  /** Notes how long one slot was held: the attempt, and the commit recording its end (over a KV far away, a round trip). */
  turned(ms: number): void {
    this.#turnMs = average(this.#turnMs, ms);
  }

  /**
   * Entries to hold at most: the concurrency, and what the concurrency uses
   * up during one take; at least twice the concurrency, at most
   * {@linkcode MAX_ROOM} (or twice the concurrency, when that is more), and
   * no more than the slots start in half the time a buffered entry has to
   * start (the rest would be given back, their leases too short, and taken
   * again); the least wins over that cap, as a worker held twice its
   * concurrency before it measured anything.
   */
  room(): number {
    const c = this.#concurrency;
    const least = 2 * c;
    const [take, attempt, turn] = [this.#takeMs, this.#attemptMs, this.#turnMs];
    if (take === undefined || attempt === undefined || turn === undefined) return least;
    const during = Math.ceil(c * take / Math.max(attempt, 0.01));
    const startable = c + Math.floor(c * this.#startWithinMs / 2 / Math.max(turn, 0.01));
    return Math.max(least, Math.min(MAX_ROOM, c + during, startable));
  }
}

function average(current: number | undefined, ms: number): number {
  return current === undefined ? ms : current + WEIGHT * (ms - current);
}
