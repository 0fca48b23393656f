// An atomic operation that records instead of committing: what a consumer's
// `write` adds is counted (checks, mutations, bytes) so a group commit can
// keep within KV's limits, then replayed onto the real operation that
// commits the group.

import { serialize } from "node:v8";
import { anyKeyId } from "../kv/mod.ts";

type Step = (op: Deno.AtomicOperation) => void;

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

  #mutation(key: Deno.KvKey, value: unknown, step: Step, summed = false): this {
    if (!Array.isArray(key)) throw new TypeError("Cannot add a mutation: the key must be an array");
    this.mutations++;
    this.bytes += keyBytes(key) + valueBytes(value);
    (summed ? this.summedIds : this.mutatedIds).push(anyKeyId(key));
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
    return this.#mutation(key, null, (op) => op.sum(key, n), true);
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

  /** Adds every recorded mutation (not the checks: the group adds each key's once) to `op`, in order. */
  replay(op: Deno.AtomicOperation): void {
    for (const step of this.#steps) step(op);
  }
}
