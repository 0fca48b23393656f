// Group commit: writes that are ready at the same time share one atomic
// operation, within the KV's limits: 100 checks locally, ten over KV Connect
// (learnt from the first refused commit of more), 1,000 mutations, 800 KiB
// of mutations. One group is committed at a time per KV object; what arrives
// meanwhile waits and forms the next group, sent as soon as the last one
// committed, before that one's jobs are told, so under load a write costs a
// fraction of a commit (group commit, as in a database's log flush). A job may number its writes in a sequence (a counter
// key bumped in the same commit, checked by versionstamp), so the numbers
// follow commit order across processes.
//
// When a shared commit fails, the checks of the group are read again and each
// job learns which of its own checks failed; the jobs none of whose checks
// failed go again (a moved sequence counter is read afresh). A commit that
// throws is retried job by job. No job is committed twice: the operation that
// commits is the one whose result it gets.

import { getManyBatched, withLockRetry } from "./_kv.ts";
import { AtomicRecorder } from "./_atomic_recorder.ts";
import { keyId } from "./_key_id.ts";

/** The most checks one operation carries on a local KV (SQLite takes 100). */
const LOCAL_CHECKS = 100;
/** The most checks one operation carries over KV Connect (denokv and Deno Deploy take 10). */
export const REMOTE_CHECKS = 10;
/** The most mutations one operation carries. */
const MAX_MUTATIONS = 1000;
/** Bytes of mutations (keys and values) one operation carries, below KV's 800 KiB with room for encoding. */
const MAX_BYTES = 760_000;
/** How often a job whose group failed for others' reasons goes again before it is failed. */
const MAX_TRIES = 8;

/** One write to commit. */
export interface GroupJob {
  /** Checks the job's decision rests on (besides those `build` adds). */
  checks: Deno.AtomicCheck[];
  /** A counter key: the job takes `count` numbers of it, in commit order. */
  sequence?: Deno.KvKey;
  /** How many numbers of `sequence` it takes. */
  count?: number;
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
  | { kind: "committed"; versionstamp: string; first: number }
  /** Some of its checks no longer held: those are named; nothing of it was written. */
  | { kind: "failed"; changed: Deno.AtomicCheck[] }
  /** `build` threw, it is too large for one operation, or KV failed: nothing of it was written. */
  | { kind: "error"; error: unknown };

interface Entry {
  job: GroupJob;
  recorder?: AtomicRecorder;
  first: number;
  tries: number;
  alone: boolean;
  resolve(result: GroupResult): void;
}

/** A group sent to the KV, and how its commit went. */
type Sent =
  & { group: Entry[]; last: Map<string, { key: Deno.KvKey; value: number }> }
  & (
    | { kind: "committed"; result: Deno.KvCommitResult }
    | { kind: "refused"; checks: number }
    | { kind: "threw"; checks: number; error: unknown }
  );

/** A sequence counter as last read or committed by this process. */
interface Counter {
  value: number;
  versionstamp: string | null;
}

/** The group committer of one KV object. */
class GroupCommitter {
  #kv: Deno.Kv;
  #waiting: Entry[] = [];
  #running = false;
  #counters = new Map<string, Counter>();
  /**
   * Checks one operation may carry: a local KV's 100 until a commit of more
   * than ten is refused (a KV Connect URL), then ten for good.
   */
  #maxChecks = LOCAL_CHECKS;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  submit(job: GroupJob): Promise<GroupResult> {
    const { promise, resolve } = Promise.withResolvers<GroupResult>();
    this.#waiting.push({ job, first: 0, tries: 0, alone: false, resolve });
    if (!this.#running) {
      this.#running = true;
      void this.#run();
    }
    return promise;
  }

  async #run(): Promise<void> {
    try {
      let sending: Promise<Sent> | null = null;
      for (;;) {
        if (sending === null) {
          if (this.#waiting.length === 0) break;
          await this.#readCounters();
          const group = this.#take();
          if (group.length === 0) continue;
          sending = this.#send(group);
        }
        const sent: Sent = await sending;
        sending = null;
        if (sent.kind === "committed") {
          for (const [id, { value }] of sent.last) {
            this.#counters.set(id, { value, versionstamp: sent.result.versionstamp });
          }
          // The next group goes to the KV before this one's jobs learn their result, so the KV works on
          // it while they finish their requests (its numbers follow from this commit's counters).
          if (this.#waiting.length > 0 && this.#countersKnown()) {
            const group = this.#take();
            if (group.length > 0) sending = this.#send(group);
          }
          for (const entry of sent.group) {
            entry.resolve({ kind: "committed", versionstamp: sent.result.versionstamp, first: entry.first });
          }
        } else await this.#failed(sent);
      }
    } catch (error) {
      // Reading a counter failed: every waiting job fails; the next submit starts afresh.
      for (const entry of this.#waiting.splice(0)) entry.resolve({ kind: "error", error });
    } finally {
      this.#running = false;
    }
  }

  /** Whether every waiting job's sequence counter is known (else it is read before the next group). */
  #countersKnown(): boolean {
    return this.#waiting.every(({ job }) => !job.sequence || this.#counters.has(keyId(job.sequence)));
  }

  /** Reads the counters of waiting jobs not known yet. */
  async #readCounters(): Promise<void> {
    const unknown = new Map<string, Deno.KvKey>();
    for (const { job } of this.#waiting) {
      if (job.sequence && !this.#counters.has(keyId(job.sequence))) unknown.set(keyId(job.sequence), job.sequence);
    }
    if (unknown.size === 0) return;
    const entries = await getManyBatched<number>(this.#kv, [...unknown.values()]);
    for (const entry of entries) this.#counters.set(keyId(entry.key), counterOf(entry));
  }

  /** The next group: waiting jobs in order while they fit one operation and touch no key another touches. */
  #take(): Entry[] {
    const group: Entry[] = [];
    const checked = new Map<string, string | null>();
    const mutated = new Set<string>();
    const next = new Map<string, number>();
    let checks = 0, mutations = 0, bytes = 0;
    const later: Entry[] = [];
    while (this.#waiting.length > 0) {
      const entry = this.#waiting[0];
      if (entry.alone && group.length > 0) break;
      this.#waiting.shift();
      const { job } = entry;
      const seqId = job.sequence ? keyId(job.sequence) : null;
      const first = seqId === null ? 0 : (next.get(seqId) ?? this.#counters.get(seqId)!.value) + 1;
      // Built once: its writes are kept for another operation, unless its numbers in a sequence have moved.
      let recorder = entry.recorder;
      if (recorder === undefined || (seqId !== null && first !== entry.first)) {
        recorder = new AtomicRecorder();
        try {
          recorder.check(...job.checks);
          job.build(recorder, first);
        } catch (error) {
          entry.resolve({ kind: "error", error });
          continue;
        }
        entry.recorder = recorder;
        entry.first = first;
      }
      const newSeq = seqId !== null && !next.has(seqId) ? 1 : 0;
      let extraChecks = newSeq;
      let clash = false;
      for (const [i, check] of recorder.checks.entries()) {
        const id = recorder.checkIds[i];
        if (mutated.has(id) || id === seqId) clash = true;
        else if (checked.has(id)) clash ||= checked.get(id) !== check.versionstamp;
        else extraChecks++;
      }
      for (const id of recorder.mutatedIds) if (checked.has(id) || mutated.has(id) || id === seqId) clash = true;
      const extraBytes = recorder.bytes + (newSeq ? 64 : 0);
      const extraMutations = recorder.mutations + newSeq;
      const fits = checks + extraChecks <= this.#maxChecks && mutations + extraMutations <= MAX_MUTATIONS &&
        bytes + extraBytes <= MAX_BYTES;
      if (group.length === 0 && (!fits || clash)) {
        const error = clash
          ? new TypeError("Cannot commit: a write may not touch its own sequence counter")
          : new RangeError(tooLarge(recorder, this.#maxChecks));
        entry.resolve({ kind: "error", error });
        continue;
      }
      if (group.length > 0 && clash) {
        later.push(entry);
        continue;
      }
      if (!fits) {
        this.#waiting.unshift(entry);
        break;
      }
      for (const [i, check] of recorder.checks.entries()) checked.set(recorder.checkIds[i], check.versionstamp);
      for (const id of recorder.mutatedIds) mutated.add(id);
      checks += extraChecks;
      mutations += extraMutations;
      bytes += extraBytes;
      if (seqId !== null) next.set(seqId, first + (job.count ?? 0) - 1);
      group.push(entry);
      if (entry.alone) break;
    }
    this.#waiting.unshift(...later);
    return group;
  }

  /** Builds a group's operation and sends it to the KV (before its first await); settles without throwing. */
  async #send(group: Entry[]): Promise<Sent> {
    const op = this.#kv.atomic();
    const last = new Map<string, { key: Deno.KvKey; value: number }>();
    const checks = new Map<string, Deno.AtomicCheck>();
    for (const entry of group) {
      const { checks: own, checkIds } = entry.recorder!;
      for (let i = 0; i < own.length; i++) checks.set(checkIds[i], own[i]);
      const seq = entry.job.sequence;
      if (seq) {
        const id = keyId(seq);
        if (!last.has(id)) op.check({ key: seq, versionstamp: this.#counters.get(id)!.versionstamp });
        last.set(id, { key: seq, value: entry.first + (entry.job.count ?? 0) - 1 });
      }
      entry.recorder!.replay(op);
    }
    op.check(...checks.values()); // each key once: KV Connect counts every check
    for (const { key, value } of last.values()) op.set(key, value);
    try {
      const result = await withLockRetry(() => op.commit());
      return result.ok
        ? { kind: "committed", group, last, result }
        : { kind: "refused", group, last, checks: checks.size };
    } catch (error) {
      return { kind: "threw", group, last, checks: checks.size, error };
    }
  }

  /** After a commit that threw or whose checks failed: tells each job what failed, or puts it back first in line. */
  async #failed(sent: Exclude<Sent, { kind: "committed" }>): Promise<void> {
    const { group, last } = sent;
    if (sent.kind === "refused") return await this.#sortOut(group, [...last.values()].map(({ key }) => key));
    if (sent.checks + last.size > REMOTE_CHECKS && this.#maxChecks > REMOTE_CHECKS) {
      // Refused with more than ten checks: a remote KV. From now on at most ten, and this group again.
      this.#maxChecks = REMOTE_CHECKS;
      this.#waiting.unshift(...group);
    } else if (group.length === 1) group[0].resolve({ kind: "error", error: sent.error });
    else this.#waiting.unshift(...group.map((entry) => ({ ...entry, alone: true })));
  }

  /** After a failed commit: reads every check again; each job learns its own failed checks, or goes again. */
  async #sortOut(group: Entry[], sequences: Deno.KvKey[]): Promise<void> {
    const all = new Map<string, Deno.KvKey>();
    for (const entry of group) {
      const { checks, checkIds } = entry.recorder!;
      for (let i = 0; i < checks.length; i++) all.set(checkIds[i], checks[i].key);
    }
    for (const key of sequences) all.set(keyId(key), key);
    let entries: Deno.KvEntryMaybe<unknown>[];
    try {
      entries = await getManyBatched(this.#kv, [...all.values()]);
    } catch (error) {
      for (const entry of group) entry.resolve({ kind: "error", error });
      return;
    }
    const now = new Map(entries.map((entry) => [keyId(entry.key), entry.versionstamp]));
    for (const key of sequences) {
      this.#counters.set(
        keyId(key),
        counterOf(entries.find((e) => keyId(e.key) === keyId(key)) as Deno.KvEntryMaybe<number>),
      );
    }
    const again: Entry[] = [];
    for (const entry of group) {
      const { checks, checkIds } = entry.recorder!;
      const changed = checks.filter((check, i) => now.get(checkIds[i]) !== check.versionstamp);
      if (changed.length > 0) entry.resolve({ kind: "failed", changed });
      else again.push(entry);
    }
    // A try counts only when no job's check explains the failure (another process moved a counter, say).
    if (again.length === group.length) {
      for (const entry of again.filter((entry) => ++entry.tries >= MAX_TRIES)) {
        entry.resolve({ kind: "error", error: new Error("Cannot commit: too many concurrent writers, try again") });
      }
    }
    this.#waiting.unshift(...again.filter((entry) => entry.tries < MAX_TRIES));
  }
}

function counterOf(entry: Deno.KvEntryMaybe<number>): Counter {
  const value = typeof entry.value === "number" && Number.isSafeInteger(entry.value) ? entry.value : 0;
  return { value, versionstamp: entry.versionstamp };
}

function tooLarge(recorder: AtomicRecorder, maxChecks: number): string {
  return `Cannot commit: one write needs ${recorder.checks.length} checks, ${recorder.mutations} mutations and ` +
    `${recorder.bytes} bytes; one atomic operation takes at most ${maxChecks} checks, ${MAX_MUTATIONS} ` +
    `mutations and ${MAX_BYTES} bytes`;
}

const committers = new WeakMap<Deno.Kv, GroupCommitter>();

/**
 * Commits a job together with the other jobs ready at the same time on this
 * KV object. Never rejects: failures are results.
 */
export function commitInGroup(kv: Deno.Kv, job: GroupJob): Promise<GroupResult> {
  let committer = committers.get(kv);
  if (committer === undefined) committers.set(kv, committer = new GroupCommitter(kv));
  return committer.submit(job);
}
