// An atomic operation that records instead of committing: what a consumer's
// `write` adds is counted (checks, mutations, bytes) so a group commit can
// keep within KV's limits, then replayed onto the real operation that
// commits the group. Sums may be gathered rather than replayed, so that a
// group adds to each counter once (see `replay`).

import { serialize } from "node:v8";
import { anyKeyId } from "../kv/mod.ts";

type Step = (op: Deno.AtomicOperation, sums: SumTotals | null) => void;

/** What a group adds with `sum`, by key id: each counter once, however many jobs add to it. */
export type SumTotals = Map<string, { key: Deno.KvKey; n: bigint }>;

/** One `sum` a job added, and whether it is an amount the group may gather. */
interface Added {
  id: string;
  key: Deno.KvKey;
  n: bigint;
  valid: boolean;
}

/** The largest value of a KV `sum` (a 64-bit unsigned integer); sums wrap past it. */
const U64_MAX = 2n ** 64n - 1n;

/** Adds `totals` to `op`, one `sum` per key. */
export function applySums(op: Deno.AtomicOperation, totals: SumTotals): void {
  for (const { key, n } of totals.values()) op.sum(key, n);
}

/** Bytes a key takes in KV's encoding, near enough for a budget. */
function keyBytes(key: Deno.KvKey): number {
  let bytes = 0;
  for (const part of key) {
    if (typeof part === "string") bytes += part.length * 3 + 2;
    else if (part instanceof Uint8Array) bytes += part.byteLength + 2;
    else bytes += 10;
  }
  return bytes;
}

/**
 * Bytes a value takes in KV, at most: raw bytes as they are; strings at two
 * bytes a character (V8 writes one or two); plain objects and arrays walked
 * (a few levels, so a row costs no serialisation); anything else serialised.
 */
function valueBytes(value: unknown, depth = 0): number {
  switch (typeof value) {
    case "string":
      return 2 * value.length + 5;
    case "number":
    case "bigint":
      return 10;
    case "boolean":
    case "undefined":
      return 1;
  }
  if (value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength + 5;
  if (value instanceof Deno.KvU64) return 8;
  const proto = Object.getPrototypeOf(value);
  if (depth < 4 && (proto === Object.prototype || proto === null || Array.isArray(value))) {
    let bytes = 8;
    for (const key in value as Record<string, unknown>) {
      bytes += 2 * key.length + 5 + valueBytes((value as Record<string, unknown>)[key], depth + 1);
    }
    return bytes;
  }
  try {
    return serialize(value).byteLength;
  } catch {
    return 0; // KV refuses it at the commit, with its own error
  }
}

/** Records the steps of one atomic operation. */
export class AtomicRecorder {
  /** The checks added, in order. */
  readonly checks: Deno.AtomicCheck[] = [];
  /** Ids of the checks' keys, in the same order. */
  readonly checkIds: string[] = [];
  /** Ids of the keys mutated, `sum` aside. */
  readonly mutatedIds: string[] = [];
  /** Ids of the keys only added to with `sum`: sums commute, so jobs that sum one key may share an operation. */
  readonly summedIds: string[] = [];
  /** How many mutations were added. */
  mutations = 0;
  /** Bytes of the mutations' keys and values. */
  bytes = 0;
  #steps: Step[] = [];
  #sums: Added[] = [];

  #mutation(key: Deno.KvKey, value: unknown, step: Step, summed = false, id?: string): this {
    if (!Array.isArray(key)) throw new TypeError("Cannot add a mutation: the key must be an array");
    this.mutations++;
    this.bytes += keyBytes(key) + valueBytes(value);
    (summed ? this.summedIds : this.mutatedIds).push(id ?? anyKeyId(key));
    this.#steps.push(step);
    return this;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    for (const check of checks) {
      if (!check || !Array.isArray(check.key)) throw new TypeError("Cannot add a check: it needs a key array");
      this.checks.push({ key: check.key, versionstamp: check.versionstamp });
      this.checkIds.push(anyKeyId(check.key));
    }
    return this;
  }

  mutate(...mutations: Deno.KvMutation[]): this {
    for (const m of mutations) {
      this.#mutation(m.key, "value" in m ? m.value : undefined, (op) => op.mutate(m));
    }
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    if (!Array.isArray(key)) throw new TypeError("Cannot add a mutation: the key must be an array");
    const id = anyKeyId(key);
    // Gathered only when it is a valid amount and this job writes the key no other way (a set then a sum of
    // one key must stay in order); anything else is replayed as it came, and KV judges it.
    const added: Added = { id, key, n, valid: typeof n === "bigint" && n >= 0n && n <= U64_MAX };
    this.#sums.push(added);
    return this.#mutation(
      key,
      null,
      (op, sums) => {
        if (sums === null || !this.#gathered(added)) op.sum(key, n);
      },
      true,
      id,
    );
  }

  #gathered(added: Added): boolean {
    return added.valid && !this.mutatedIds.includes(added.id);
  }

  /**
   * Adds to `totals` the sums that {@linkcode replay} given totals leaves
   * out. The group adds them ahead of every other mutation: Deno KV refuses
   * a sum on a value that is no 64-bit counter at the commit but keeps the
   * mutations added before it, so a counter edited into junk must fail the
   * commit before any claim or item is written.
   */
  gatherSums(totals: SumTotals): void {
    for (const added of this.#sums) {
      if (!this.#gathered(added)) continue;
      const total = totals.get(added.id);
      if (total === undefined) totals.set(added.id, { key: added.key, n: added.n });
      else total.n = (total.n + added.n) & U64_MAX;
    }
  }

  min(key: Deno.KvKey, n: bigint): this {
    return this.#mutation(key, null, (op) => op.min(key, n));
  }

  max(key: Deno.KvKey, n: bigint): this {
    return this.#mutation(key, null, (op) => op.max(key, n));
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    return this.#mutation(key, value, (op) => op.set(key, value, options));
  }

  delete(key: Deno.KvKey): this {
    return this.#mutation(key, null, (op) => op.delete(key));
  }

  enqueue(
    value: unknown,
    options?: { delay?: number; keysIfUndelivered?: Deno.KvKey[]; backoffSchedule?: number[] },
  ): this {
    this.mutations++;
    this.bytes += valueBytes(value);
    this.#steps.push((op) => op.enqueue(value, options));
    return this;
  }

  /** Never: the receiver commits. */
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return Promise.reject(new TypeError("Cannot commit here: the receiver commits this operation"));
  }

  /**
   * Adds every recorded mutation (not the checks: the group adds each key's
   * once) to `op`, in order. With `sums`, the sums {@linkcode gatherSums}
   * gathered are left out (the group adds each total once, first, with
   * {@linkcode applySums}): sums commute, and a group holds no other write or
   * check of a key that one of its jobs sums.
   */
  replay(op: Deno.AtomicOperation, sums: SumTotals | null = null): void {
    for (const step of this.#steps) step(op, sums);
  }
}
