// The request details of numbered postbacks (stored by the receiver's
// `write`) as they wait for their batch, and how a batch is packed into
// deflated entries.
//
// A waiting postback's details are its `[first number, details]` JSON pair,
// UTF-8, appended to one buffer: an ArrayBuffer's bytes live outside V8's
// heap, so a batch of a thousand postbacks is not a thousand objects that
// each young-generation collection copies and the next promotes (measured
// at 64 connections: they were a third of what every scavenge copied, and
// p99 was 38-40 ms with them against 33-34 without).
//
// An entry is kept below SQLite's overflow threshold (about 940 bytes of a
// 4 KiB page) where one postback's details allow: a larger value spills onto
// overflow pages, which every search comparing a key with it reads whole.

import { setImmediate } from "node:timers";
import { deflateRawSync } from "node:zlib";
import type { AttemptInfo } from "./_delivery_item.ts";
import { attemptBatchKey } from "./_keys.ts";

/** The first byte of a deflated entry (an earlier version's entries are JSON, which starts with `[`). */
export const DEFLATED = 0;
/** Bytes of JSON one entry holds at most before deflating (a KV value holds 64 KiB). */
const ENTRY_BYTES = 60_000;
/** Bytes a deflated entry aims to stay within: below SQLite's overflow threshold, with room for its key. */
const ENTRY_TARGET = 900;
/** Bytes of the buffer a batch starts with (it doubles as it fills). */
const FIRST_BYTES = 16 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The JSON of details (as `wrap` puts them), without their headers when
 * those would pass what one entry holds (hundreds of long ones): the rest of
 * the details are kept.
 */
export function cappedJson(info: AttemptInfo, wrap: (info: AttemptInfo) => unknown = (info) => info): string {
  const json = JSON.stringify(wrap(info));
  return json.length * 3 + 2 > ENTRY_BYTES ? JSON.stringify(wrap({ ...info, headers: {} })) : json;
}

/** The `[first number, details]` pairs of one batch, as JSON bytes end to end. */
export class PairBuffer {
  #bytes = new Uint8Array(FIRST_BYTES);
  #length = 0;
  /** Each pair's first number, in the order they came. */
  #firsts: number[] = [];
  /** Where each pair ends in the buffer. */
  #ends: number[] = [];

  /** How many pairs it holds. */
  get size(): number {
    return this.#firsts.length;
  }

  /** Adds the details of the postback whose first number is `first` (a later pair for it wins). */
  add(first: number, info: AttemptInfo): void {
    const json = cappedJson(info, (info) => [first, info]);
    const most = this.#length + json.length * 3;
    if (most > this.#bytes.byteLength) {
      const grown = new Uint8Array(Math.max(most, this.#bytes.byteLength * 2));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#length += encoder.encodeInto(json, this.#bytes.subarray(this.#length)).written;
    this.#firsts.push(first);
    this.#ends.push(this.#length);
  }

  /** The details held for `first`, the latest added, or `null`. */
  find(first: number): AttemptInfo | null {
    const i = this.#firsts.lastIndexOf(first);
    return i === -1 ? null : (JSON.parse(decoder.decode(this.#pair(i))) as [number, AttemptInfo])[1];
  }

  /**
   * The pairs' indexes by first number, the latest of each number only.
   * Reports come in about the order of their numbers, so most batches are in
   * order already; a `Set` of this version's numbers (past 2^31, so each a
   * heap number) made this 2% of the receiver's main thread at 64
   * connections.
   */
  order(): number[] {
    const firsts = this.#firsts;
    const n = firsts.length;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = firsts[i] > firsts[i - 1];
    const indexes = Array.from({ length: n }, (_, i) => i);
    if (sorted) return indexes;
    // Stable by arrival among equal numbers: the last of each run is the latest.
    indexes.sort((a, b) => firsts[a] - firsts[b] || a - b);
    return indexes.filter((i, k) => k + 1 === n || firsts[indexes[k + 1]] !== firsts[i]);
  }

  /** Pair `i`'s first number. */
  firstOf(i: number): number {
    return this.#firsts[i];
  }

  /** Bytes of pair `i`'s JSON. */
  bytesOf(i: number): number {
    return this.#ends[i] - (i === 0 ? 0 : this.#ends[i - 1]);
  }

  /** A JSON array of these pairs, as bytes. */
  json(indexes: number[]): Uint8Array {
    let length = 1 + indexes.length;
    for (const i of indexes) length += this.bytesOf(i);
    const out = new Uint8Array(length);
    out[0] = 0x5b; // [
    let at = 1;
    for (const i of indexes) {
      out.set(this.#pair(i), at);
      at += this.bytesOf(i);
      out[at++] = 0x2c; // ,
    }
    out[length - 1] = 0x5d; // ] in place of the last comma
    return out;
  }

  #pair(i: number): Uint8Array {
    return this.#bytes.subarray(i === 0 ? 0 : this.#ends[i - 1], this.#ends[i]);
  }
}

/**
 * Packs a batch's pairs into deflated entries keyed by their lowest and
 * highest number. Pairs are cut into parts at the length the last entries'
 * ratio says fits, so each is deflated once; only a part that came out too
 * large is halved and deflated again (halving whole runs instead deflated
 * each byte three times: 7% of the receiver's main thread under load).
 * Between parts it yields to the event loop.
 */
export class Packer {
  /** Deflated bytes per JSON byte, as the last entries went (the first guess: a tenth; headers repeat). */
  #ratio = 0.1;

  async pack(pairs: PairBuffer): Promise<[Deno.KvKey, Uint8Array][]> {
    const order = pairs.order();
    // Aim at 80% of the target, so a part a little less compressible than the last still fits.
    const most = Math.min(ENTRY_BYTES, Math.max(1, Math.floor(ENTRY_TARGET * 0.8 / this.#ratio)));
    const out: [Deno.KvKey, Uint8Array][] = [];
    let json = 0, deflated = 0;
    for (let i = 0; i < order.length;) {
      let j = i + 1, length = pairs.bytesOf(order[i]);
      while (j < order.length && length + pairs.bytesOf(order[j]) + 1 <= most) length += pairs.bytesOf(order[j++]) + 1;
      for (const entry of packed(pairs, order.slice(i, j))) {
        out.push(entry);
        deflated += entry[1].byteLength;
      }
      json += length + 2;
      i = j;
      // A part at a time, with requests served between: a whole batch took the event loop for 2-4 ms.
      if (i < order.length) await new Promise((resolve) => setImmediate(resolve));
    }
    if (json > 0) this.#ratio = Math.min(1, Math.max(0.01, deflated / json));
    return out;
  }
}

/** Pairs, in order, as deflated entries of at most ENTRY_TARGET bytes where one pair allows: halved while too large. */
function packed(pairs: PairBuffer, indexes: number[]): [Deno.KvKey, Uint8Array][] {
  const deflated = deflateRawSync(pairs.json(indexes), { level: 1 });
  if (deflated.byteLength + 1 > ENTRY_TARGET && indexes.length > 1) {
    const half = Math.ceil(indexes.length / 2);
    return [...packed(pairs, indexes.slice(0, half)), ...packed(pairs, indexes.slice(half))];
  }
  const value = new Uint8Array(deflated.byteLength + 1);
  value[0] = DEFLATED;
  value.set(deflated, 1);
  const key = attemptBatchKey(pairs.firstOf(indexes[0]), pairs.firstOf(indexes[indexes.length - 1]));
  return [[key, value]];
}
