/**
 * The log's numbers, time-major, so that no key is shared by every writer:
 * `(ms - EPOCH) * 4096 + slot * 128 + n`, with `slot` (0-31) a writer slot
 * this process leases in KV, and `n` its count within that millisecond. Two
 * processes never take one number (their slots differ), and the numbers of
 * one process only grow: a postback's items take consecutive numbers, up to
 * 128 a millisecond; past that a process takes its next millisecond, ahead
 * of the clock. The numbers of the counter earlier versions kept are far
 * below the first of these, so an old log's rows come first.
 *
 * A slot is leased for {@linkcode LEASE_MS} (atomic: its entry checked by
 * versionstamp), renewed when a write finds a third of it gone (off the
 * answer's path), and left to run out when the process dies; its entry is
 * kept (no expiry), so its end outlives it. A process never
 * numbers at or past its lease's end, and the next owner of the slot starts
 * there: a process that lost its lease unawares cannot take its successor's
 * numbers, whatever the two clocks say.
 *
 * @module
 */

import { SLOT_PREFIX, slotKey, WRITTEN_SHARDS, writtenKey } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import type { Postback } from "../../webhooks/mod.ts";

/** 2026-01-01T00:00:00Z: numbers count milliseconds from here. */
export const EPOCH = Date.UTC(2026, 0, 1);
/** Numbers per millisecond: 32 slots of 128. */
export const PER_MS = 4096;
/** Writer slots. */
export const SLOTS = 32;
/** Numbers one slot takes per millisecond. */
export const PER_SLOT = 128;
/** How long a slot's lease lasts. */
export const LEASE_MS = 30_000;

/** The lowest number of millisecond `ms` (the numbers below it were taken before it, or by earlier versions). */
export function numberAt(ms: number): number {
  return Math.max(0, Math.floor(ms) - EPOCH) * PER_MS;
}

/** The millisecond a number was taken in (of an earlier version's number: the epoch). */
export function msOf(seq: number): number {
  return EPOCH + Math.floor(seq / PER_MS);
}

/** A slot's lease entry. */
interface Lease {
  owner: string;
  /** When it ends (ms): its owner numbers below this millisecond only. */
  until: number;
}

/**
 * A lease's end as stored when it can be one (a number at most a day past the clock: a lease lasts
 * {@linkcode LEASE_MS}); else 0: junk (edited by hand), which holds its slot for nobody and bounds no number.
 */
export function leaseEnd(held: unknown, now: number): number {
  const until = (held as Partial<Lease> | null)?.until;
  return typeof until === "number" && until <= now + FAR_AHEAD_MS ? until : 0;
}

/** How far past the clock a stored time (a lease's end, the hook index's mark) can be before it is taken as junk. */
export const FAR_AHEAD_MS = 86_400_000;

/** Numbers of one process: a leased slot, and its count within the millisecond. */
export class Allocator {
  #kv: Deno.Kv;
  #owner = crypto.randomUUID();
  #now: () => number;
  #slot = -1;
  #until = 0;
  #versionstamp: string | null = null;
  /** The millisecond last numbered in, and the numbers taken in it. */
  #ms = 0;
  #n = 0;
  #renewing: Promise<void> | null = null;
  /** The lowest number of this slot that is this process's: its earlier owner numbered below it. */
  #since = Infinity;
  #last = 0;

  /**
   * @param kv the log's KV
   * @param now the clock (ms); `Date.now` unless a test moves it
   */
  constructor(kv: Deno.Kv, now: () => number = Date.now) {
    this.#kv = kv;
    this.#now = now;
  }

  /** The highest number taken so far (0: none). */
  get last(): number {
    return this.#last;
  }

  /** The slot leased (-1: none yet). */
  get slot(): number {
    return this.#slot;
  }

  /**
   * Resolves once this process holds a slot with time left; starts a renewal
   * in the background when a third of the lease is gone.
   */
  ready(): Promise<void> {
    const left = this.#until - this.#now();
    if (this.#slot >= 0 && left > LEASE_MS / 3) {
      if (left < LEASE_MS * 2 / 3) this.#renew().catch(() => {});
      return Promise.resolve();
    }
    return this.#renew();
  }

  #renew(): Promise<void> {
    this.#renewing ??= this.#lease().finally(() => this.#renewing = null);
    return this.#renewing;
  }

  /** Renews this process's slot, or (lost, or none yet) leases a free one. */
  async #lease(): Promise<void> {
    const now = this.#now();
    // Its own slot first, then the others from a random one, so processes starting together rarely race.
    const start = Math.floor(Math.random() * SLOTS);
    const order = [...(this.#slot >= 0 ? [this.#slot] : [])];
    for (let i = 0; i < SLOTS; i++) if ((start + i) % SLOTS !== this.#slot) order.push((start + i) % SLOTS);
    for (const slot of order) {
      // The slot's written shard too: junk there (hand-edited) fails every commit's `sum`, the rows kept all the same.
      const [entry, shard] = await retryLocked(() =>
        this.#kv.getMany<[Lease, unknown]>([slotKey(slot), writtenKey(slot % WRITTEN_SHARDS)])
      );
      const held = entry.value;
      const mine = held?.owner === this.#owner && entry.versionstamp === this.#versionstamp;
      const end = leaseEnd(held, now);
      if (held && !mine && end > now) continue;
      const until = now + LEASE_MS;
      // Kept, never expired: its end is all the next owner has to number past, whatever the two clocks say
      // (gone, the next owner would start at its own clock, behind the numbers of a process whose clock ran ahead).
      // Set to 0, the trimmer counts the log again (its count went backward).
      const junk = shard.value !== null && !(shard.value instanceof Deno.KvU64);
      const res = await retryLocked(() => {
        const op = this.#kv.atomic().check(entry).set(slotKey(slot), { owner: this.#owner, until } satisfies Lease);
        return (junk ? op.check(shard).set(shard.key, new Deno.KvU64(0n)) : op).commit();
      });
      if (!res.ok) continue;
      if (slot !== this.#slot || !mine) {
        // A slot taken over: numbered from the end of the lease before (its owner numbered below it).
        this.#ms = Math.max(this.#ms, end, now);
        this.#n = 0;
        this.#since = numberAt(this.#ms);
      }
      this.#slot = slot;
      this.#until = until;
      this.#versionstamp = res.versionstamp;
      return;
    }
    throw new Error(`Cannot number the delivery log: all ${SLOTS} writer slots are leased by other processes`);
  }

  /**
   * Whether this process holds a writer slot or could lease one now (a slot
   * with no lease, or whose lease ran out): only reads, leases nothing.
   * `false` when all {@linkcode SLOTS} are leased by other live processes.
   */
  async canNumber(): Promise<boolean> {
    const now = this.#now();
    const leased = new Set<unknown>();
    for await (const entry of this.#kv.list<Lease>({ prefix: SLOT_PREFIX })) {
      const held = entry.value;
      if (held?.owner === this.#owner || leaseEnd(held, now) <= now) return true;
      leased.add(entry.key[1]);
    }
    return Array.from({ length: SLOTS }, (_, slot) => slot).some((slot) => !leased.has(slot));
  }

  /**
   * The lowest number from which every row of the log can only be this
   * process's (`Infinity`: none): its slot was its own from there, and no
   * other slot's lease reached that millisecond (a process numbers below its
   * lease's end only). A lease's entry is kept (32 at most), so an absent
   * one was never taken; the last half lease is the bound all the same.
   */
  async ownFrom(): Promise<number> {
    if (this.#slot < 0) return Infinity;
    let from = Math.max(this.#since, numberAt(this.#now() - LEASE_MS / 2));
    for await (const entry of this.#kv.list<Lease>({ prefix: SLOT_PREFIX })) {
      if (entry.key[1] === this.#slot && entry.value?.owner === this.#owner) continue;
      const until = entry.value?.until;
      from = Math.max(from, typeof until === "number" ? numberAt(until) : Infinity);
    }
    return from;
  }

  /**
   * Takes `count` consecutive numbers (1 to 128) and returns the first.
   *
   * @throws {Error} When no slot is held, or its lease ran out (see {@linkcode ready})
   */
  take(count: number): number {
    if (!Number.isInteger(count) || count < 1 || count > PER_SLOT) {
      throw new RangeError(`Cannot number ${count} log rows at once: from 1 to ${PER_SLOT}`);
    }
    const now = Math.floor(this.#now());
    if (now > this.#ms) this.#ms = now, this.#n = 0;
    if (this.#n + count > PER_SLOT) this.#ms++, this.#n = 0;
    if (this.#slot < 0 || this.#ms >= this.#until) {
      throw new Error("Cannot number the delivery log: this process holds no writer slot (its lease ran out)");
    }
    const first = numberAt(this.#ms) + this.#slot * PER_SLOT + this.#n;
    this.#n += count;
    this.#last = first + count - 1;
    return first;
  }
}

/**
 * The first number of the postback whose items the receiver's `write` is
 * numbering: taken from the allocator at its first item (its items take
 * consecutive numbers), or the receiver's `sequence` number when it has one
 * (as earlier versions wired it).
 */
export class PostbackNumbering {
  #numbers: Allocator;
  #current = { postbackId: "", first: 0 };

  /** @param numbers this process's allocator */
  constructor(numbers: Allocator) {
    this.#numbers = numbers;
  }

  /** The number of the first item of `postback`'s postback (the item is `postback.index` after it). */
  firstOf(postback: Postback): number {
    if (postback.seq !== undefined) {
      this.#current = { postbackId: postback.postbackId, first: postback.seq - postback.index };
    } else if (postback.index === 0 || this.#current.postbackId !== postback.postbackId) {
      this.#current = { postbackId: postback.postbackId, first: this.#numbers.take(postback.count) };
    }
    return this.#current.first;
  }
}
