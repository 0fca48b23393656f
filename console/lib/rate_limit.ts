/**
 * Rate limits kept in KV, so that they hold across console processes
 * sharing one KV: a fixed window per bucket and key (sign-in per client
 * address, form posts per session, the receiver per verified tenant, the
 * sandbox's trigger and its consent form per client address), answered 429
 * with `Retry-After`.
 *
 * A window's count is one KV entry that expires with the window. Hits of one
 * process on one key are added in batches (one versionstamp-checked write for
 * all hits waiting meanwhile), and that write goes in the receiver's group
 * commit (`commitInGroup`), so under load a count shares the commit of the
 * postbacks that arrive with it.
 *
 * @module
 */

import { commitInGroup } from "../../webhooks/mod.ts";
import { retryLocked } from "./kv_retry.ts";

/** One limit: at most `limit` hits per `windowMs`. */
export interface RateRule {
  /** Hits allowed per window. */
  limit: number;
  /** The window's length in ms. */
  windowMs: number;
}

/** The console's limited buckets. */
export type RateBucket = "signin" | "forms" | "receiver" | "sandbox" | "consents" | "rejections" | "drafts";

/** A rule per bucket; `null` turns a bucket's limit off. */
export type RateLimits = Record<RateBucket, RateRule | null>;

/** The defaults: generous for people, and for a busy community's postbacks. */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  signin: { limit: 20, windowMs: 60_000 },
  forms: { limit: 120, windowMs: 60_000 },
  receiver: { limit: 6_000, windowMs: 60_000 },
  sandbox: { limit: 60, windowMs: 60_000 },
  // The sandbox's consent form posted per client address (anyone can approve; each approval stores a code).
  consents: { limit: 20, windowMs: 60_000 },
  // Refused postbacks logged per client address (the rest are answered, not logged).
  rejections: { limit: 120, windowMs: 60_000 },
  // Forms kept for after sign-in per client address (anyone can send one; each waits in KV for 30 minutes).
  drafts: { limit: 30, windowMs: 30 * 60_000 },
};

/** Where a key stands in its bucket's window, as {@linkcode RateLimiter.status} reports it. */
export interface RateStatus {
  /** Hits allowed per window. */
  limit: number;
  /** The window's length in ms. */
  windowMs: number;
  /** Hits counted in the current window (at most `limit`). */
  used: number;
  /** Hits left in the current window. */
  remaining: number;
  /** Time until the window ends and the count starts again, in ms. */
  resetsInMs: number;
}

/** A hit's verdict: allowed, or refused with the seconds until the window ends. */
export type RateVerdict = { ok: true } | { ok: false; retryAfter: number };

interface Batch {
  waiting: ((count: number) => void)[];
  failures: ((error: unknown) => void)[];
  running: boolean;
}

/** Counts hits in KV and tells whether each is within its bucket's limit. */
export class RateLimiter {
  #kv: Deno.Kv;
  #limits: RateLimits;
  #now: () => number;
  #batches = new Map<string, Batch>();
  /** The last count this process wrote per key (keys name their window, so old ones simply stop being used). */
  #known = new Map<string, Deno.KvEntryMaybe<number>>();

  /**
   * @param kv the console's KV
   * @param limits the rule of each bucket (missing ones take the defaults)
   * @param now the clock
   */
  constructor(kv: Deno.Kv, limits: Partial<RateLimits> = {}, now: () => number = Date.now) {
    this.#kv = kv;
    this.#limits = { ...DEFAULT_RATE_LIMITS, ...limits };
    this.#now = now;
    for (const [bucket, rule] of Object.entries(this.#limits)) {
      if (rule && !(Number.isInteger(rule.limit) && rule.limit > 0 && rule.windowMs >= 1000)) {
        throw new RangeError(
          `Cannot limit '${bucket}': the limit must be a positive integer and the window at least 1000 ms`,
        );
      }
    }
  }

  /** Whether `bucket` has a limit at all (a bucket turned off counts nothing). */
  limits(bucket: RateBucket): boolean {
    return this.#limits[bucket] !== null;
  }

  /**
   * Where `key` stands in `bucket`'s current window, without counting a hit
   * (for pages that show the limits): `null` when the bucket is not limited.
   */
  async status(bucket: RateBucket, key: string): Promise<RateStatus | null> {
    const rule = this.#limits[bucket];
    if (!rule) return null;
    const now = this.#now();
    const window = Math.floor(now / rule.windowMs);
    const end = (window + 1) * rule.windowMs;
    const { value } = await this.#kv.get<number>(["console_rate", bucket, key.slice(0, 200), window]);
    const used = Math.min(countOf(value), rule.limit);
    return { limit: rule.limit, windowMs: rule.windowMs, used, remaining: rule.limit - used, resetsInMs: end - now };
  }

  /**
   * Counts one hit of `key` (a client address, a session, a tenant) in
   * `bucket`, and tells whether it is within the limit.
   */
  async hit(bucket: RateBucket, key: string): Promise<RateVerdict> {
    const rule = this.#limits[bucket];
    if (!rule) return { ok: true };
    const now = this.#now();
    const window = Math.floor(now / rule.windowMs);
    const end = (window + 1) * rule.windowMs;
    const count = await this.#add(["console_rate", bucket, key.slice(0, 200), window], end - now + 1000);
    return count <= rule.limit ? { ok: true } : { ok: false, retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
  }

  /** Adds one to the count at `key`; resolves with this hit's place in the window. */
  #add(key: Deno.KvKey, expireIn: number): Promise<number> {
    const id = JSON.stringify(key);
    let batch = this.#batches.get(id);
    if (!batch) this.#batches.set(id, batch = { waiting: [], failures: [], running: false });
    const place = new Promise<number>((resolve, reject) => {
      batch.waiting.push(resolve);
      batch.failures.push(reject);
    });
    if (!batch.running) this.#flush(id, key, batch, expireIn);
    return place;
  }

  async #flush(id: string, key: Deno.KvKey, batch: Batch, expireIn: number): Promise<void> {
    batch.running = true;
    while (batch.waiting.length) {
      const waiting = batch.waiting.splice(0);
      const failures = batch.failures.splice(0);
      try {
        // The count as this process last saw it (or none yet): committed against its versionstamp with no read
        // first; when another process counted meanwhile the check fails, and the count is read and tried again.
        let current: Deno.KvEntryMaybe<number> = this.#known.get(id) ?? { key, value: null, versionstamp: null };
        for (;;) {
          const base = countOf(current.value);
          const seen = current;
          // In the receiver's group commit: a count shares the commit of the postbacks that arrive with it.
          const res = await commitInGroup(this.#kv, {
            checks: [seen],
            build: (atomic) => atomic.set(key, base + waiting.length, { expireIn }),
          });
          if (res.kind === "error") throw res.error;
          if (res.kind === "committed") {
            this.#remember(id, { key, value: base + waiting.length, versionstamp: res.versionstamp });
            waiting.forEach((resolve, i) => resolve(base + i + 1));
            break;
          }
          current = await retryLocked(() => this.#kv.get<number>(key));
        }
      } catch (error) {
        failures.forEach((reject) => reject(error));
      }
    }
    batch.running = false;
    this.#batches.delete(id);
  }

  #remember(id: string, entry: Deno.KvEntryMaybe<number>): void {
    if (this.#known.size >= 10_000 && !this.#known.has(id)) this.#known.clear();
    this.#known.set(id, entry);
  }
}

/**
 * A stored count as a number: a whole count of zero or more; anything else (NaN, a negative or fractional number, a
 * string, an object: a counter edited by hand or left by a bad write) counts as none, so the limit neither refuses
 * from the first request nor never refuses.
 */
function countOf(value: unknown): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** The 429 answer of a refused hit. */
export function tooManyRequests(verdict: { retryAfter: number }, json = false): Response {
  const message = `Too many requests: try again in ${verdict.retryAfter} s`;
  return json
    ? Response.json({ error: message }, { status: 429, headers: { "retry-after": String(verdict.retryAfter) } })
    : new Response(message, {
      status: 429,
      headers: { "retry-after": String(verdict.retryAfter), "content-type": "text/plain; charset=utf-8" },
    });
}
