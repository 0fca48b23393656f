/**
 * The load test's books of postbacks answered 200, by number: one byte each
 * in a buffer outside V8's heap. The load generator shares the machine with
 * the servers it measures, and a set of id strings grew by one string per
 * answer, only in the receiver's rows: the generator's garbage collections
 * then landed in those rows alone. Used by `scripts/loadtest.ts`.
 *
 * @module
 */

/** Numbers of the postbacks answered 200. */
export class Answered {
  #marks = new Uint8Array(1 << 16);
  #size = 0;

  /** Notes postback `n` (a positive integer) as answered 200. */
  add(n: number): void {
    if (n >= this.#marks.length) {
      const grown = new Uint8Array(Math.max(n + 1, this.#marks.length * 2));
      grown.set(this.#marks);
      this.#marks = grown;
    }
    if (this.#marks[n] === 0) this.#size++;
    this.#marks[n] = 1;
  }

  /** How many were answered 200. */
  get size(): number {
    return this.#size;
  }

  /** How many answered 200 are not among `stored` (the titles of the stored deliveries: `Load load-{n}`). */
  missingFrom(stored: Set<string>): number {
    let missing = 0;
    for (let n = 0; n < this.#marks.length; n++) {
      if (this.#marks[n] === 1 && !stored.has(`Load load-${n}`)) missing++;
    }
    return missing;
  }
}
