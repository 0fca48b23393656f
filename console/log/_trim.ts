/**
 * Trimming the delivery log to its retention, off the answers' path, with no
 * key that every commit checks: the log's rows are counted by the written
 * shards (bumped with `sum` in each commit that adds rows, `writtenKey`)
 * less the trimmed count, and one process at a time trims (a lease, checked
 * in each of its commits), the oldest rows first. Rows that expired
 * (`maxAgeMs`) leave the count high: the trimmer counts the log's rows when
 * it takes the lease and sets the trimmed count from that (modulo 2^64, so
 * an earlier version's log, counted by no shard, is counted then too), and
 * again before it deletes once a row it counted may have expired since (the
 * oldest it counted is past `maxAgeMs`), so expired rows never make it
 * delete rows the retention keeps. A count is kept in KV with its oldest
 * row and its holder's `maxAgeMs` (`TRIM_COUNT_KEY`): the next holder trims
 * by it (unless its own `maxAgeMs` is longer), and counts again when it is
 * 10 minutes old (not in its first minute), rather than list the log when
 * it starts.
 *
 * @module
 */

import type { DeliveryView } from "./_view.ts";
import { dropDelivery } from "./_delivery_item.ts";
import { rowOf } from "./_delivery_layout.ts";
import { dropTrimmedBelow } from "./_delivery_write.ts";
import {
  DELIVERY_VIEW_PREFIX,
  TRIM_COUNT_KEY,
  TRIM_LEASE_KEY,
  TRIMMED_KEY,
  WRITTEN_KEYS,
  WRITTEN_SHARDS,
} from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { leaseEnd, msOf, numberAt } from "./_numbers.ts";
import { countOf as big, junkCount } from "./_written.ts";

/** Rows past the retention that wait for a trim (a forced trim takes any). */
const TRIM_SLACK = 32;
/** Rows one trimming commit deletes at most (four mutations each, within KV's 1,000). */
const TRIM_BATCH = 200;
/** Rows this process writes between two looks at the count, near the retention. */
const LOOK_EVERY = 16;
/**
 * Rows it writes between two looks at most, far below the retention: a look
 * reads nine counters, and at 16 rows it was 3% of the receiver's main
 * thread under load with a retention far off.
 */
const LOOK_MOST = 1_024;
/** How long the trimming lease lasts. */
const LEASE_MS = 30_000;
/** How often the holder of the lease counts the log's rows again (expired rows leave the count high). */
const RECOUNT_MS = 10 * 60_000;
/**
 * How long a process that takes the lease trims by the count kept in KV
 * before it counts again, when that count is already due (a console
 * restarted after a stop): not while its first answers go.
 */
const START_GRACE_MS = 60_000;
/** Rows a count of the log reads at most. */
const MAX_COUNT = 100_000;
/**
 * How much sooner than its number's millisecond says a row may expire (a
 * row numbered ahead of the clock, past 128 a millisecond, was committed
 * before that millisecond).
 */
const EXPIRY_MARGIN_MS = 1_000;

const U64 = 1n << 64n;
const KEYS: Deno.KvKey[] = [...WRITTEN_KEYS, TRIMMED_KEY];

/**
 * What {@linkcode TRIM_COUNT_KEY} holds: when the log was last counted, its
 * oldest row then, and the `maxAgeMs` of the holder that kept it (its rows
 * expire by that).
 */
interface Counted {
  at: number;
  oldest: number;
  maxAgeMs: number;
}

/** Trims one store's log to its retention, in the background. */
export class Trimmer {
  #kv: Deno.Kv;
  #retain: number;
  #maxAgeMs: number;
  /**
   * The number of the oldest row the last count found, or below: while it
   * is younger than `maxAgeMs`, no row counted since has expired.
   */
  #oldest = 0;
  #owner = crypto.randomUUID();
  /** The lease as this process last wrote it. */
  #lease: Deno.KvEntryMaybe<unknown> | null = null;
  #until = 0;
  #pending = 0;
  /**
   * Rows to write before the next look: a quarter of what the last look
   * found left below the retention and its slack (so several processes that
   * write meanwhile pass it by little, and the next look trims that), from
   * {@linkcode LOOK_EVERY} to {@linkcode LOOK_MOST}.
   */
  #lookAfter = LOOK_EVERY;
  /** When this process last looked. */
  #lookedAt = 0;
  /** Whether this process wrote rows (a process that writes none trims none). */
  #wrote = false;
  /** When the count this process trims by was made, by it or by the holder before (0: none since it took the lease). */
  #counted = 0;
  /** When this process counts the log again (0: before it trims). */
  #recountAt = 0;
  #running: Promise<void> | null = null;
  /** The counts as last read: they only grow (the trimmed count but by a count of the log). */
  #seen: bigint[] = [];

  /**
   * @param kv the log's KV
   * @param retain rows to keep
   * @param options `maxAgeMs`, how long KV keeps a row (its expiry)
   */
  constructor(kv: Deno.Kv, retain: number, options: { maxAgeMs: number }) {
    this.#kv = kv;
    this.#retain = retain;
    this.#maxAgeMs = options.maxAgeMs;
  }

  /** Whether a row counted by the last count may have expired since (the count may then be high). */
  #mayHaveExpired(): boolean {
    return msOf(this.#oldest) + this.#maxAgeMs - EXPIRY_MARGIN_MS <= Date.now();
  }

  /** `count` rows of this process are counted: looks at the count now and then, and trims when past the slack. */
  wrote(count: number): void {
    this.#wrote ||= count > 0;
    this.#pending += count;
    if (this.#pending < LOOK_EVERY || this.#running) return;
    // Within a third of the lease, so a holder that writes keeps it (taken anew, it counts the log again).
    if (this.#pending < this.#lookAfter && Date.now() - this.#lookedAt < LEASE_MS / 3) return;
    this.#lookedAt = Date.now();
    this.#pending = 0;
    this.trim(false).catch(() => {});
  }

  /**
   * Trims now (`force`: any row past the retention; else once the slack is
   * past), or waits for the trim running; nothing when this process wrote
   * no row.
   */
  trim(force = true): Promise<void> {
    if (!this.#wrote) return Promise.resolve();
    // A trim that is running may have counted before the rows that ask for this one: another follows it.
    const after = this.#running?.catch(() => {}) ?? Promise.resolve();
    const next: Promise<void> = after.then(() => this.#trim(force)).finally(() => {
      if (this.#running === next) this.#running = null;
    });
    this.#running = next;
    return next;
  }

  /** Takes or renews the trimming lease; false when another process holds it. */
  async #take(): Promise<boolean> {
    const now = Date.now();
    if (this.#lease && this.#until - now > LEASE_MS / 2) return true;
    const [entry, counted] = await retryLocked(() =>
      this.#kv.getMany<[{ owner: string; until: number }, Counted]>([TRIM_LEASE_KEY, TRIM_COUNT_KEY])
    );
    const held = entry.value;
    // An end more than a day ahead (a lease lasts 30 s) was edited by hand: the lease is free.
    if (held && held.owner !== this.#owner && leaseEnd(held, now) > now) return false;
    const until = now + LEASE_MS;
    const res = await retryLocked(() =>
      this.#kv.atomic().check(entry).set(TRIM_LEASE_KEY, { owner: this.#owner, until }, { expireIn: LEASE_MS })
        .commit()
    );
    if (!res.ok) return false;
    const fresh = !this.#lease || held?.owner !== this.#owner;
    this.#lease = { key: TRIM_LEASE_KEY, value: null, versionstamp: res.versionstamp };
    this.#until = until;
    // Taken anew: trimmed by the last holder's count (its oldest row tells when rows counted may have expired), or
    // without one, counted from the log itself (rows may have expired, or an earlier version wrote them).
    if (fresh) this.#adopt(counted.value, now);
    return true;
  }

  /**
   * Takes the count the last holder left, counting again when it is 10
   * minutes old but not in the first minute: listing the log at every start
   * was 0.2 s of the main thread at 50,000 rows, up to three times while
   * postbacks land, which slowed a restarted console's first answers 2-4x.
   * None there (an earlier version's log), or kept under a shorter
   * `maxAgeMs` (its rows may have expired long before this process's
   * `maxAgeMs` says, leaving the count high): counted now.
   */
  #adopt(counted: Counted | null, now: number): void {
    const valid = counted && Number.isFinite(counted.at) && Number.isSafeInteger(counted.oldest) &&
      counted.oldest >= 0 && typeof counted.maxAgeMs === "number" && counted.maxAgeMs >= this.#maxAgeMs;
    this.#counted = valid ? Math.min(counted.at, now) : 0;
    this.#oldest = valid ? counted.oldest : 0;
    this.#recountAt = valid ? Math.max(this.#counted + RECOUNT_MS, now + START_GRACE_MS) : 0;
  }

  /**
   * Counts the log's rows and sets the trimmed count so that written less
   * trimmed is that. A row and its count are committed together, and the
   * written count is read after the rows are listed, once: a row written
   * while they were listed is counted as written but maybe not as listed,
   * which errs on the side of keeping a row more, until the next count.
   * (Listing again until no row landed meanwhile listed the whole log three
   * times under load: 0.2 s of the main thread each at 50,000 rows.)
   */
  async #recount(): Promise<void> {
    let rows = 0n;
    // Rows written from now on are numbered from here, or (a commit landing late) a little below.
    const since = numberAt(Date.now() - LEASE_MS);
    let oldest = since;
    for await (const e of this.#kv.list({ prefix: DELIVERY_VIEW_PREFIX }, { limit: MAX_COUNT, batchSize: 1000 })) {
      if (rows === 0n) oldest = Math.min(since, e.key[1] as number);
      rows++;
    }
    const shards = await retryLocked(() => this.#kv.getMany<unknown[]>(WRITTEN_KEYS));
    const after = shards.reduce((sum, entry) => sum + big(entry.value), 0n);
    const trimmed = (((after - rows) % U64) + U64) % U64;
    const at = Date.now();
    await retryLocked(() => {
      const op = this.#kv.atomic().check(this.#lease!).set(TRIMMED_KEY, new Deno.KvU64(trimmed))
        .set(TRIM_COUNT_KEY, { at, oldest, maxAgeMs: this.#maxAgeMs } satisfies Counted);
      // A shard hand-edited into junk (it fails every commit's sum) counts 0, as read here.
      for (const shard of shards) if (junkCount(shard.value)) op.check(shard).set(shard.key, new Deno.KvU64(0n));
      return op.commit();
    });
    this.#counted = at;
    this.#recountAt = at + RECOUNT_MS;
    this.#oldest = oldest;
  }

  async #trim(force: boolean): Promise<void> {
    if (!(await this.#take())) return;
    // A forced trim (the store's flush) counts the log again, exact when nothing is written meanwhile.
    if (force || Date.now() >= this.#recountAt) await this.#recount();
    const hooks = new Set<string>();
    let keepFrom = 0;
    let recounted = false;
    for (;;) {
      const counters = await retryLocked(() => this.#kv.getMany<unknown[]>(KEYS));
      const values = counters.map((entry) => big(entry.value));
      const written = values.slice(0, WRITTEN_SHARDS).reduce((sum, value) => sum + value, 0n);
      const left = (((written - values[WRITTEN_SHARDS]) % U64) + U64) % U64;
      // A count hand-edited (lower, deleted, junk) is not trimmed by: below, the log is counted first.
      const broken = left >= U64 / 2n || counters.some((entry) => junkCount(entry.value)) ||
        (counters[WRITTEN_SHARDS].value === null && written > 0n) || values.some((v, i) => v < (this.#seen[i] ?? 0n));
      this.#seen = values;
      const rows = Number(left);
      const excess = rows - this.#retain;
      this.#lookAfter = Math.min(LOOK_MOST, Math.max(LOOK_EVERY, Math.floor((TRIM_SLACK - excess) / 4)));
      if (excess < (force ? 1 : TRIM_SLACK)) break;
      if (!recounted && (broken || this.#mayHaveExpired())) {
        // Rows counted may have expired since: the count may be high by them, so the log is counted first.
        await this.#recount();
        recounted = true;
        continue;
      }
      force = true; // once started, down to the retention
      const old: DeliveryView[] = [];
      const inline = new Set<DeliveryView>();
      /** Junk rows (hand-edited, a bad write): only their key is known, and deleted. */
      const junk: Deno.KvKey[] = [];
      let last = 0;
      const limit = Math.min(excess, TRIM_BATCH);
      for await (const e of this.#kv.list({ prefix: DELIVERY_VIEW_PREFIX }, { limit })) {
        last = e.key[1] as number;
        const row = rowOf(e.value, last);
        if (row === null) junk.push(e.key);
        else old.push(row.view);
        if (row && row.payload !== null) inline.add(row.view);
      }
      if (old.length + junk.length < limit) {
        // Fewer rows than counted (some expired): counted again, and trimmed by that count.
        if (recounted) break;
        await this.#recount();
        recounted = true;
        continue;
      }
      const op = this.#kv.atomic().check(this.#lease!);
      for (const view of old) dropDelivery(op, view, inline.has(view)), hooks.add(view.hookId);
      for (const key of junk) op.delete(key);
      op.sum(TRIMMED_KEY, BigInt(old.length + junk.length));
      // The rows left are numbered from there: with a short maxAgeMs, the next trims (and holders) need not count
      // again.
      const from = last + 1;
      const oldest = Math.max(this.#oldest, from);
      op.set(TRIM_COUNT_KEY, { at: this.#counted, oldest, maxAgeMs: this.#maxAgeMs } satisfies Counted);
      const res = await retryLocked(() => op.commit());
      if (!res.ok) return; // the lease was lost: the new holder trims
      keepFrom = from;
      this.#oldest = oldest;
    }
    if (keepFrom > 0) await dropTrimmedBelow(this.#kv, keepFrom, hooks);
  }
}
