// The receiver's `write` mode: the header's claim and the consumer's writes
// go in one atomic operation, shared with the other postbacks ready at the
// same time (_group_commit.ts). No pending state, no lease, no done mark: a
// postback is stored once or not at all. And the answers of both modes.

import { AsyncLocalStorage } from "node:async_hooks";
import { DONE_BYTES, judge } from "./claim/mod.ts";
import { submitToGroup } from "../group_commit/mod.ts";
import { commitEnded, commitStarted } from "../telemetry/mod.ts";
import { getManyBatched, keyId, ownKeyId } from "../kv/mod.ts";
import { answer } from "./_receive.ts";

/** How a postback went: what the answer and the report say. */
export type Verdict =
  /** Handed on (and marked done) or stored. */
  | "stored"
  /** Handed on, but its claim could not be marked done. */
  | "unmarked"
  /** A hook already took this header. */
  | "done"
  /** A request still running holds this header. */
  | "held"
  /** `onPostback` or `write` threw. */
  | "threw"
  /** A check that `write` added no longer held. */
  | "check"
  /** KV failed, or the writes do not fit one atomic operation. */
  | "error";

/** Seconds a held copy is told to wait before it is sent again. */
export const RETRY_AFTER_S = 5;

/** How often a claim found taken (by a copy that then failed, or a lapsed lease) is tried again. */
const CLAIM_ROUNDS = 4;

/** What {@linkcode commitWrites} needs of one postback. */
export interface WriteJob {
  kv: Deno.Kv;
  /** The claim's keys, one per hook. */
  keys: Deno.KvKey[];
  /** The checks of the cached community and records the decision rests on. */
  checks: Deno.AtomicCheck[];
  sequence: Deno.KvKey | undefined;
  /** Items of the postback: numbers it takes in the sequence. */
  count: number;
  expireIn: number;
  now: number;
  /** Calls `write` for every item. */
  build(atomic: Deno.AtomicOperation, first: number): void;
}

/**
 * Claims this process committed, by key id, with when (performance.now) they
 * expire, in two generations; and those being committed. A full generation
 * becomes the older one and the one before is forgotten whole (KV still has
 * those claims). Not one map that drops its oldest key per claim: a `Map`
 * finds its oldest key by walking past every slot deleted since it last
 * rehashed, so at 50,000 claims that cost up to ~100 µs a postback (a third
 * of what one costs the console) for stretches of tens of seconds.
 */
interface Known {
  stored: Map<string, number>;
  older: Map<string, number>;
  storing: Map<string, Promise<unknown>>;
}

const known = new WeakMap<Deno.Kv, Known>();
/** Claims one generation holds: a process remembers its last 25,000 to 50,000 claims per KV object. */
const GENERATION = 25_000;

function knownOf(kv: Deno.Kv): Known {
  let k = known.get(kv);
  if (k === undefined) known.set(kv, k = { stored: new Map(), older: new Map(), storing: new Map() });
  return k;
}

/** Whether this process committed one of these claims, still within its life. */
function storedHere(k: Known, ids: string[]): boolean {
  return ids.some((id) => {
    const until = k.stored.get(id) ?? k.older.get(id);
    if (until === undefined) return false;
    if (until > performance.now()) return true;
    k.stored.delete(id);
    k.older.delete(id);
    return false;
  });
}

/** Remembers claims this process committed, until `until`. */
function remember(k: Known, ids: string[], until: number): void {
  for (const id of ids) k.stored.set(id, until);
  if (k.stored.size >= GENERATION) {
    k.older = k.stored;
    k.stored = new Map();
  }
}

/**
 * Commits a postback's claim and writes, in a group: `"stale"` when a cached
 * check failed (the postback is to be decided afresh), else its verdict. A
 * copy of a header this process stored, or is storing, is decided without
 * building its writes: `write` is never called for a known duplicate.
 */
export async function commitWrites(job: WriteJob): Promise<Verdict | "stale"> {
  const k = knownOf(job.kv);
  const ids = job.keys.map(ownKeyId);
  if (storedHere(k, ids)) return "done";
  const running: Promise<unknown>[] = [];
  for (const id of ids) {
    const storing = k.storing.get(id);
    if (storing) running.push(storing);
  }
  if (running.length > 0) {
    await Promise.allSettled(running);
    if (storedHere(k, ids)) return "done";
  }
  const mine = commitClaimed(job);
  for (const id of ids) k.storing.set(id, mine);
  try {
    const verdict = await mine;
    if (verdict === "stored") {
      remember(k, ids, performance.now() + job.expireIn);
    }
    return verdict;
  } finally {
    for (const id of ids) if (k.storing.get(id) === mine) k.storing.delete(id);
  }
}

async function commitClaimed(job: WriteJob): Promise<Verdict | "stale"> {
  const { kv, keys, checks, expireIn } = job;
  // `write` runs in the request's own async context (AsyncLocalStorage sees it). Without a sequence a job is
  // built once, as it is submitted (_group_commit.ts, #prebuild), here in that context; only a job numbered in a
  // sequence may be built again later, by the group commit, so only it takes a snapshot of the context (each is
  // an AsyncResource registered for finalization: about 140 bytes a postback promoted, and a weak cell for GC).
  const inRequest = job.sequence === undefined ? null : AsyncLocalStorage.snapshot();
  const build = inRequest === null
    ? job.build
    : (atomic: Deno.AtomicOperation, first: number) => inRequest(job.build, atomic, first);
  let expected: (string | null)[] = keys.map(() => null);
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    let threw = false;
    const span = commitStarted(); // webhooks.commit, under the request's span
    const result = await submitToGroup(kv, {
      checks: [...keys.map((key, i) => ({ key, versionstamp: expected[i] })), ...checks],
      sequence: job.sequence,
      count: job.count,
      postbacks: 1,
      build: (atomic, first) => {
        threw = false;
        try {
          build(atomic, first);
        } catch (error) {
          threw = true;
          throw error;
        }
        for (const key of keys) atomic.set(key, DONE_BYTES, { expireIn });
      },
    });
    commitEnded(span, result.kind === "committed" ? result.postbacks : undefined, result.kind === "committed");
    if (result.kind === "committed") return "stored";
    if (result.kind === "error") return threw ? "threw" : "error";
    const changed = new Set(result.changed.map((check) => keyId(check.key)));
    if (keys.some((key) => changed.has(keyId(key)))) {
      // Taken meanwhile: by a copy (done), a request still running (held), or one that since failed.
      const entries = await getManyBatched<unknown>(kv, keys);
      const verdict = judge(entries, job.now);
      if (verdict) return verdict;
      expected = entries.map((entry) => entry.versionstamp);
      continue;
    }
    return checks.some((check) => changed.has(keyId(check.key))) ? "stale" : "check";
  }
  return "held";
}

/** What a request's report gathers of its verdict. */
interface Traced {
  reason: string;
  duplicate?: boolean;
}

const REASONS: Record<Verdict, string> = {
  stored: "Delivered",
  unmarked: "Delivered; its claim could not be marked done",
  done: "Duplicate: this header was already accepted",
  held: "In progress: a copy of this header is being handled",
  threw: "The consumer threw",
  check: "A check added by write no longer held",
  error: "The commit failed",
};

/** The answer to a verdict, noted in the request's report. */
export function settle(verdict: Verdict, items: number, trace: Traced): Response {
  trace.reason = REASONS[verdict];
  switch (verdict) {
    case "stored":
    case "unmarked":
      return answer(200, { received: items });
    case "done":
      trace.duplicate = true;
      return answer(200, { received: 0, duplicate: true });
    case "held":
      return answer(409, { error: "In progress" }, { "retry-after": String(RETRY_AFTER_S) });
    default:
      return answer(500, { error: "Internal error" });
  }
}

/** Checks the `sequence` option: a KV key, given only with `write`. */
export function checkSequence(sequence: unknown, write: boolean): Deno.KvKey | undefined {
  if (sequence === undefined) return undefined;
  if (!write) throw new TypeError("Cannot create receiver: 'sequence' is only used with 'write'");
  if (!Array.isArray(sequence) || sequence.length === 0) {
    throw new TypeError("Cannot create receiver: 'sequence' must be a KV key (a non-empty array)");
  }
  return sequence as Deno.KvKey;
}
