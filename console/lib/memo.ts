/**
 * A small time-bounded memory of what an async lookup found, per key: what
 * it found is kept `ttlMs`, and an absence (`null`) `missTtlMs` (none by
 * default), so a hot path reads KV once per key and period, not per request.
 * The whole memory is dropped when it holds `max` keys and another is to be
 * kept, so a flood of distinct keys costs bounded memory.
 *
 * @module
 */

/** Options of {@linkcode Memo}. */
export interface MemoOptions {
  /** How long a value found is kept, in ms. */
  ttlMs: number;
  /** How long an absence is kept, in ms; 0 (the default) keeps none. */
  missTtlMs?: number;
  /** Most keys kept. */
  max: number;
  /** The clock, in ms (tests); `Date.now` by default. */
  now?: () => number;
}

/** A lookup whose answers are kept for a while. */
export class Memo<T> {
  #known = new Map<string, { value: T | null; until: number }>();
  #load: (key: string) => Promise<T | null>;
  #options: MemoOptions;
  #now: () => number;

  /**
   * @param options how long answers are kept, and how many
   * @param load the lookup
   */
  constructor(options: MemoOptions, load: (key: string) => Promise<T | null>) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#load = load;
  }

  /** The kept answer for `key` while it lasts, else a fresh lookup (kept for next time). */
  async get(key: string): Promise<T | null> {
    const hit = this.#known.get(key);
    if (hit && hit.until > this.#now()) return hit.value;
    const value = await this.#load(key);
    this.note(key, value);
    return value;
  }

  /** Keeps `value` as the answer for `key` (a change this process made itself). */
  note(key: string, value: T | null): void {
    const ttl = value === null ? this.#options.missTtlMs ?? 0 : this.#options.ttlMs;
    if (ttl <= 0) {
      this.#known.delete(key);
      return;
    }
    if (this.#known.size >= this.#options.max && !this.#known.has(key)) this.#known.clear();
    this.#known.set(key, { value, until: this.#now() + ttl });
  }
}
