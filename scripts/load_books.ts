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

/** The books of one KV after a run: what was answered 200 against what the KV stores. */
export interface Books {
  /** Postbacks answered 200. */
  answered: number;
  /** Distinct postbacks stored (one answered after its run ended is stored, not counted as answered). */
  stored: number;
  /** Answered 200 and not stored. */
  lost: number;
  /** Stored more than once. */
  duplicated: number;
}

/**
 * The books of postbacks `answered` 200 by any of the processes that share
 * one KV, against the accepted deliveries that KV holds (`total` rows,
 * `titles` distinct): a postback stored by each of two processes counts as
 * duplicated, one stored by either as stored.
 */
export function balance(answered: Answered, stored: { total: number; titles: Set<string> }): Books {
  return {
    answered: answered.size,
    stored: stored.titles.size,
    lost: answered.missingFrom(stored.titles),
    duplicated: stored.total - stored.titles.size,
  };
}
