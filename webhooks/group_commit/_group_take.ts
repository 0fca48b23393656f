// Which waiting jobs form a group commit's next group (_group_commit.ts):
// the limits of one atomic operation, the jobs and their entries, and taking
// a group from the front of the line within those limits.

import { getManyBatched, keyId } from "../kv/mod.ts";
import { AtomicRecorder } from "./_atomic_recorder.ts";

/** The most checks one operation carries on a local KV (SQLite takes 100). */
export const LOCAL_CHECKS = 100;
/** The most checks one operation carries over KV Connect (denokv and Deno Deploy take 10). */
export const REMOTE_CHECKS = 10;
/** The most mutations one operation carries. */
const MAX_MUTATIONS = 1000;
/** Bytes of mutations (keys and values) one operation carries, below KV's 800 KiB with room for encoding. */
const MAX_BYTES = 760_000;
/** How often a job whose group failed for others' reasons goes again before it is failed. */
export const MAX_TRIES = 8;

/** One write to commit. */
export interface GroupJob {
  /** Checks the job's decision rests on (besides those `build` adds). */
  checks: Deno.AtomicCheck[];
  /** A counter key: the job takes `count` numbers of it, in commit order. */
  sequence?: Deno.KvKey;
  /** How many numbers of `sequence` it takes. */
  count?: number;
  /** Postbacks it stores (a receiver's job: 1), for the `webhooks.commit.postbacks` metric; default 0. */
  postbacks?: number;
  /**
   * Adds the job's writes to `atomic`; `first` is its first number of the
   * sequence. Called once; called again only when the job goes in another
   * operation with other numbers of its sequence. What it throws fails the
   * job alone.
   */
  build(atomic: Deno.AtomicOperation, first: number): void;
}

/** How a job went. */
export type GroupResult =
  /** Written, in one operation that stored `postbacks` postbacks in all (the jobs' `postbacks`, its own included). */
  | { kind: "committed"; versionstamp: string; first: number; postbacks: number }
  /** Some of its checks no longer held: those are named; nothing of it was written. */
  | { kind: "failed"; changed: Deno.AtomicCheck[] }
  /** `build` threw, it is too large for one operation, or KV failed: nothing of it was written. */
  | { kind: "error"; error: unknown };

/** A job waiting in line, with its recorded writes once built. */
export interface Entry {
  job: GroupJob;
  /** The id of the job's sequence key, when it has one (computed once). */
  seqId: string | null;
  recorder?: AtomicRecorder;
  first: number;
  tries: number;
  alone: boolean;
  resolve(result: GroupResult): void;
}

/** A sequence counter as last read or committed by this process. */
export interface Counter {
  value: number;
  versionstamp: string | null;
}

/** A counter as read from KV: a number that is not a safe integer counts as 0. */
export function counterOf(entry: Deno.KvEntryMaybe<number>): Counter {
  const value = typeof entry.value === "number" && Number.isSafeInteger(entry.value) ? entry.value : 0;
  return { value, versionstamp: entry.versionstamp };
}

/** Whether every waiting job's sequence counter is known (else it is read before the next group). */
export function countersKnown(waiting: Entry[], counters: Map<string, Counter>): boolean {
  return waiting.every(({ seqId }) => seqId === null || counters.has(seqId));
}

/** Reads into `counters` the sequence counters of waiting jobs not known yet. */
export async function readCounters(kv: Deno.Kv, waiting: Entry[], counters: Map<string, Counter>): Promise<void> {
  const unknown = new Map<string, Deno.KvKey>();
  for (const { job, seqId } of waiting) {
    if (seqId !== null && !counters.has(seqId)) unknown.set(seqId, job.sequence!);
  }
  if (unknown.size === 0) return;
  const entries = await getManyBatched<number>(kv, [...unknown.values()]);
  for (const entry of entries) counters.set(keyId(entry.key), counterOf(entry));
}

/**
 * Builds a job's writes into a recorder at its first number `first`, kept on
 * the entry. False when `build` threw: the job has failed (told so).
 */
export function buildEntry(entry: Entry, first: number): boolean {
  const recorder = new AtomicRecorder();
  try {
    recorder.check(...entry.job.checks);
    entry.job.build(recorder, first);
  } catch (error) {
    entry.resolve({ kind: "error", error });
    return false;
  }
  entry.recorder = recorder;
  entry.first = first;
  return true;
}

/** The last number of the sequence that a job takes. */
export function lastNumber(entry: Entry): number {
  return entry.first + (entry.job.count ?? 0) - 1;
}

/**
 * The next group, taken from the front of `waiting`: jobs in order while they
 * fit one operation and touch no key another touches, nor a key of a group in
 * flight (`busy`), but for sums of one key, which commute: a job that clashes
 * waits for the next group. A job is built
 * here, into a recorder kept for a later operation, and built again only when
 * its sequence numbers moved.
 */
export function takeGroup(
  waiting: Entry[],
  counters: Map<string, Counter>,
  maxChecks: number,
  busy: Busy | null = null,
): Entry[] {
  const group: Entry[] = [];
  const checked = new Map<string, string | null>();
  const mutated = new Set<string>();
  const summed = new Set<string>();
  const next = new Map<string, number>();
  let checks = 0, mutations = 0, bytes = 0;
  const later: Entry[] = [];
  while (waiting.length > 0) {
    const entry = waiting[0];
    if (entry.alone && group.length > 0) break;
    waiting.shift();
    const { seqId } = entry;
    if (busy !== null && seqId !== null && busy.ids.has(seqId)) {
      later.push(entry); // its numbers follow the group in flight's
      continue;
    }
    const first = seqId === null ? 0 : (next.get(seqId) ?? counters.get(seqId)!.value) + 1;
    // Built once: its writes are kept for another operation, unless its numbers in a sequence have moved.
    if (entry.recorder === undefined || (seqId !== null && first !== entry.first)) {
      if (!buildEntry(entry, first)) continue;
    }
    const recorder = entry.recorder!;
    if (busy !== null && touchesAny(recorder, busy)) {
      later.push(entry);
      continue;
    }
    const newSeq = seqId !== null && !next.has(seqId) ? 1 : 0;
    let extraChecks = newSeq;
    let clash = false;
    const { checks: own, checkIds, mutatedIds, summedIds } = recorder;
    for (let i = 0; i < own.length; i++) {
      const id = checkIds[i];
      if (mutated.has(id) || summed.has(id) || id === seqId) clash = true;
      else if (checked.has(id)) clash ||= checked.get(id) !== own[i].versionstamp;
      else extraChecks++;
    }
    for (let i = 0; i < mutatedIds.length && !clash; i++) {
      const id = mutatedIds[i];
      if (checked.has(id) || mutated.has(id) || summed.has(id) || id === seqId) clash = true;
    }
    // Sums of one key commute: only a check or another kind of write of the key clashes with them.
    for (let i = 0; i < summedIds.length && !clash; i++) {
      const id = summedIds[i];
      if (checked.has(id) || mutated.has(id) || id === seqId) clash = true;
    }
    const extraBytes = recorder.bytes + (newSeq ? 64 : 0);
    const extraMutations = recorder.mutations + newSeq;
    const fits = checks + extraChecks <= maxChecks && mutations + extraMutations <= MAX_MUTATIONS &&
      bytes + extraBytes <= MAX_BYTES;
    if (group.length === 0 && (!fits || clash)) {
      const error = clash
        ? new TypeError("Cannot commit: a write may not touch its own sequence counter")
        : new RangeError(tooLarge(recorder, maxChecks));
      entry.resolve({ kind: "error", error });
      continue;
    }
    if (group.length > 0 && clash) {
      later.push(entry);
      continue;
    }
    if (!fits) {
      waiting.unshift(entry);
      break;
    }
    for (let i = 0; i < own.length; i++) checked.set(checkIds[i], own[i].versionstamp);
    for (let i = 0; i < mutatedIds.length; i++) mutated.add(mutatedIds[i]);
    for (let i = 0; i < summedIds.length; i++) summed.add(summedIds[i]);
    checks += extraChecks;
    mutations += extraMutations;
    bytes += extraBytes;
    if (seqId !== null) next.set(seqId, lastNumber(entry));
    group.push(entry);
    if (entry.alone) break;
  }
  waiting.unshift(...later);
  return group;
}

/**
 * The keys of the groups in flight: those they write (`ids`, sequences
 * included), those they only check (`checked`), and those they only add to
 * with `sum` (`summed`).
 */
export interface Busy {
  ids: Set<string>;
  checked: Set<string>;
  summed: Set<string>;
}

/** The keys a group touches, as {@linkcode Busy} tells them while it is in flight. */
export function keysOf(group: Entry[]): Busy {
  const ids = new Set<string>();
  const checked = new Set<string>();
  const summed = new Set<string>();
  for (const entry of group) {
    const { checkIds, mutatedIds, summedIds } = entry.recorder!;
    for (const id of checkIds) checked.add(id);
    for (const id of mutatedIds) ids.add(id);
    for (const id of summedIds) summed.add(id);
    if (entry.seqId !== null) ids.add(entry.seqId);
  }
  // A key the group both checks and sums counts as written, as does one it writes besides.
  for (const id of summed) if (checked.has(id)) ids.add(id);
  for (const id of ids) checked.delete(id), summed.delete(id);
  return { ids, checked, summed };
}

/** The keys of all `flights` together (a key one writes counts as written). */
export function busyOf(flights: Iterable<Busy>): Busy {
  const busy: Busy = { ids: new Set(), checked: new Set(), summed: new Set() };
  for (const flight of flights) {
    for (const id of flight.ids) busy.ids.add(id);
    for (const id of flight.checked) busy.checked.add(id);
    for (const id of flight.summed) busy.summed.add(id);
  }
  return busy;
}

/**
 * Whether a job's recorded writes clash with the groups in flight: a key it
 * checks that one of them writes or sums, a key it writes that one of them
 * touches, a key it sums that one of them checks or writes. Groups that only
 * check one key (a community's and a hook's versionstamps, which every
 * postback to them checks) go at once: neither moves it. So do groups that
 * only sum one key: each sum is applied once, by its own group's commit, in
 * whichever order. Copies of one header both write its claim, so they never
 * go at once.
 */
function touchesAny(recorder: AtomicRecorder, busy: Busy): boolean {
  const { ids, checked, summed } = busy;
  return recorder.checkIds.some((id) => ids.has(id) || summed.has(id)) ||
    recorder.mutatedIds.some((id) => ids.has(id) || checked.has(id) || summed.has(id)) ||
    recorder.summedIds.some((id) => ids.has(id) || checked.has(id));
}

function tooLarge(recorder: AtomicRecorder, maxChecks: number): string {
  return `Cannot commit: one write needs ${recorder.checks.length} checks, ${recorder.mutations} mutations and ` +
    `${recorder.bytes} bytes; one atomic operation takes at most ${maxChecks} checks, ${MAX_MUTATIONS} ` +
    `mutations and ${MAX_BYTES} bytes`;
}
