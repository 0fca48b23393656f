/**
 * How accepted postbacks' requests went (headers without the signature, the
 * verdict's figures, the time taken), kept for their deliveries' detail page.
 * Written in batches, one write for all that arrived within 250 ms, off
 * their answers' path, and in the receiver's group commit (`commitInGroup`):
 * under load a batch rides in a commit the postbacks make anyway, instead of
 * one of its own that theirs would queue behind on SQLite's single writer.
 * Until its batch is in KV, a postback's details are read from this
 * process's memory.
 * The details of postbacks the receiver's `write` stored (numbered by
 * their first delivery) share entries too: one entry holds the details of
 * many postbacks, deflated, keyed by the lowest and highest number in it, so
 * a postback costs KV a fraction of an entry; trimming deletes an entry once
 * it passed its highest number. Every entry expires with the deliveries.
 *
 * How a batch waits and is packed is _attempt_pack.ts's: its JSON in one
 * buffer off V8's heap, then entries kept below SQLite's overflow threshold
 * (measured before: an entry of ~19 KB was read whole five times per
 * receiver commit, on SQLite's thread). The details of one platform differ
 * little from postback to postback, so deflated they take a tenth to a
 * twentieth of their JSON.
 *
 * @module
 */

import { inflateRawSync } from "node:zlib";
import { commitInGroup } from "../../webhooks/mod.ts";
import type { AnsweredAttempt, AttemptInfo, DetailsAt } from "./_delivery_item.ts";
import { cappedJson, DEFLATED, Packer, PairBuffer } from "./_attempt_pack.ts";
import { ATTEMPT_BATCH_PREFIX, attemptAtKey, attemptBatchKey } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";

/**
 * How long attempt details wait to be written with others. Measured at 16
 * connections against 50 ms: the console's receiver served 5% more (five
 * alternating runs out of five); 1,000 ms served no more than 250.
 */
const BATCH_MS = 250;
/** Bytes a deflated entry may inflate to at most (its JSON was at most 60 kB). */
const MAX_INFLATED = 1024 * 1024;
/** Batch entries read back from a number to find its details (a late report lands in a later batch). */
const LOOK_BACK = 64;
/** Batch entries one lookup reads at most (a stats page's 200 postbacks among other hooks' too). */
const MAX_READ = 512;
/** Bytes of entries one write takes at most (KV takes 800 KiB per atomic operation, shared in a group). */
const JOB_BYTES = 400_000;
/** Batch entries one trimming pass deletes at most. */
const DROP_BATCH = 200;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Attempt details as stored: UTF-8 JSON bytes, or (written by earlier versions) JSON text or the object itself. */
export function attemptInfoOf(value: unknown): AttemptInfo | null {
  if (typeof value === "string" || value instanceof Uint8Array) {
    try {
      return JSON.parse(typeof value === "string" ? value : decoder.decode(value)) as AttemptInfo;
    } catch {
      return null;
    }
  }
  return value && typeof value === "object" ? value as AttemptInfo : null;
}

/** The `[first number, details]` pairs of a batch entry, deflated or (an earlier version's) JSON; none when it does not parse. */
function pairsOf(value: unknown): [number, AttemptInfo][] {
  if (!(value instanceof Uint8Array) || value.byteLength === 0) return [];
  try {
    const json = value[0] === DEFLATED ? inflateRawSync(value.subarray(1), { maxOutputLength: MAX_INFLATED }) : value;
    const pairs = JSON.parse(decoder.decode(json));
    return Array.isArray(pairs) ? pairs : [];
  } catch {
    return [];
  }
}

/**
 * The details of the postbacks whose first delivery has one of these
 * numbers: from the batch entries (the newest holding each), else from the
 * entry of its own an earlier version wrote.
 */
export async function detailsAt(kv: Deno.Kv, firsts: number[]): Promise<Map<number, AttemptInfo>> {
  const out = new Map<number, AttemptInfo>();
  if (firsts.length === 0) return out;
  const wanted = new Set(firsts);
  const lowest = Math.min(...firsts);
  // Entries are in order of their lowest number: from the highest wanted back past the lowest, a few more
  // for a report that came late (its batch starts later than its number).
  let past = 0;
  const end = attemptBatchKey(Math.max(...firsts) + 1, 0);
  for await (const entry of kv.list({ prefix: ATTEMPT_BATCH_PREFIX, end }, { reverse: true, limit: MAX_READ })) {
    const [, low, high] = entry.key as [string, number, number];
    if (high >= lowest) {
      for (const [first, info] of pairsOf(entry.value)) {
        if (wanted.has(first) && !out.has(first)) out.set(first, info);
      }
    }
    if (out.size === wanted.size || (low < lowest && ++past >= LOOK_BACK)) break;
  }
  const missing = firsts.filter((first) => !out.has(first));
  for (let i = 0; i < missing.length; i += 10) {
    const found = await kv.getMany<unknown[]>(missing.slice(i, i + 10).map(attemptAtKey));
    for (const [k, entry] of found.entries()) {
      const info = attemptInfoOf(entry.value);
      if (info) out.set(missing[i + k], info);
    }
  }
  return out;
}

/** Deletes the batch entries whose numbers are all below `keepFrom` (their deliveries are trimmed). */
export async function dropDetailsBelow(kv: Deno.Kv, keepFrom: number): Promise<void> {
  for (;;) {
    const op = kv.atomic();
    let seen = 0, dropped = 0;
    const selector = { prefix: ATTEMPT_BATCH_PREFIX, end: attemptBatchKey(keepFrom, 0) };
    for await (const entry of kv.list(selector, { limit: DROP_BATCH, consistency: "eventual" })) {
      seen++;
      if ((entry.key[2] as number) < keepFrom) op.delete(entry.key), dropped++;
    }
    if (dropped > 0) await retryLocked(() => op.commit());
    if (seen < DROP_BATCH || dropped === 0) return;
  }
}

/** Details of one batch: keyed ones by their key's JSON, numbered ones by their first number. */
interface Batch {
  keyed: Map<string, [Deno.KvKey, AttemptInfo]>;
  numbered: PairBuffer;
}

/** The attempt details of accepted postbacks, written in batches. */
export class AttemptDetails {
  #kv: Deno.Kv;
  #expireIn: number;
  /** The batch being gathered: written when its timer fires or on flush. */
  #batch: Batch = { keyed: new Map(), numbered: new PairBuffer() };
  #next: Promise<void> | null = null;
  #due: (() => void) | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Batches taken and being written, by their write. */
  #writing = new Map<Promise<void>, Batch>();
  #packer = new Packer();

  /**
   * @param kv the console's KV
   * @param expireIn how long details live, in ms (the deliveries' maximum age)
   */
  constructor(kv: Deno.Kv, expireIn: number) {
    this.#kv = kv;
    this.#expireIn = expireIn;
  }

  /** Queues a report for the next batch, kept at `at`; resolves once that batch is written. */
  record(attempt: AnsweredAttempt, at: DetailsAt): Promise<void> {
    const { headers, tenantId, clientId, timestampAgeMs, itemCount, durationMs, response } = attempt;
    // Its keys hold strings and numbers only (and the answer's, kept when given).
    const info: AttemptInfo = { headers, tenantId, clientId, timestampAgeMs, itemCount, durationMs };
    if (response) info.response = response;
    if ("first" in at) this.#batch.numbered.add(at.first, info);
    else this.#batch.keyed.set(JSON.stringify(at.key), [at.key, info]);
    // A report that comes while a batch is written waits for the next batch, never for one already taken.
    this.#next ??= new Promise<void>((resolve) => {
      this.#due = resolve;
      this.#timer = setTimeout(resolve, BATCH_MS);
    }).then(() => {
      const batch = this.#batch;
      this.#batch = { keyed: new Map(), numbered: new PairBuffer() };
      this.#next = this.#due = null;
      const writing = this.#write([...batch.keyed.values()], batch.numbered);
      this.#writing.set(writing, batch);
      writing.catch(() => {}).finally(() => this.#writing.delete(writing));
      return writing;
    });
    return this.#next;
  }

  /** Writes the waiting batch now, and waits for those being written. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    const next = this.#next;
    this.#due?.();
    await Promise.allSettled([next, ...this.#writing.keys()]);
  }

  /** The details kept at `at` while they wait in this process's memory for their batch to be in KV. */
  pending(at: DetailsAt): AttemptInfo | undefined {
    const key = "first" in at ? at.first : JSON.stringify(at.key);
    for (const batch of [this.#batch, ...this.#writing.values()]) {
      const info = typeof key === "number" ? batch.numbered.find(key) : batch.keyed.get(key)?.[1];
      if (info) return info;
    }
    return undefined;
  }

  /** The details kept at `at`, when recorded: from this process's memory until their batch is in KV. */
  async of(at: DetailsAt): Promise<AttemptInfo | null> {
    const waiting = this.pending(at);
    if (waiting) return waiting;
    if ("first" in at) return (await detailsAt(this.#kv, [at.first])).get(at.first) ?? null;
    return attemptInfoOf((await this.#kv.get(at.key)).value);
  }

  async #write(keyed: [Deno.KvKey, AttemptInfo][], numbered: PairBuffer): Promise<void> {
    const sets: [Deno.KvKey, Uint8Array][] = keyed.map(([key, info]) => [key, encoder.encode(cappedJson(info))]);
    if (numbered.size > 0) sets.push(...await this.#packer.pack(numbered));
    // In the receiver's group commit: under load the details ride in a commit the postbacks make anyway.
    for (let i = 0; i < sets.length;) {
      let j = i, bytes = 0;
      while (j < sets.length && j - i < 200 && (j === i || bytes + sets[j][1].byteLength <= JOB_BYTES)) {
        bytes += sets[j++][1].byteLength;
      }
      const part = sets.slice(i, j);
      const result = await commitInGroup(this.#kv, {
        checks: [],
        build: (atomic) => {
          for (const [key, value] of part) atomic.set(key, value, { expireIn: this.#expireIn });
        },
      });
      if (result.kind !== "committed") throw result.kind === "error" ? result.error : new Error("Cannot write details");
      i = j;
    }
  }
}
