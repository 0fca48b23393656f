// Group commit: writes that are ready at the same time share one atomic
// operation, within the KV's limits: 100 checks locally, ten over KV Connect,
// 1,000 mutations, 800 KiB of mutations. Which jobs form a group is
// _group_take.ts's. A job may number its writes in a sequence (a counter key
// bumped in the same commit, checked by versionstamp), so the numbers follow
// commit order across processes.
//
// Groups in flight. A group does not wait for the one before it to commit,
// unless the two touch the same keys (a job that touches a key of a group in
// flight waits for the next group): on a local KV one group is in flight at a
// time, since SQLite commits one after another and what arrives meanwhile
// makes the next group larger (as a database's log flush); on a remote KV,
// whose commits are round trips that many writers may have out at once,
// several are, as many as the time its jobs take shows best (_in_flight.ts).
// Which kind a KV is, is asked once per KV object, before its first group
// (_remote.ts); a remote KV's groups carry at most ten checks from the first.
//
// A job's writes are built as it is submitted, at the numbers it will take
// unless a job ahead of it fails, so that the group's writes are ready when
// the KV is free. A job whose numbers turn out otherwise is built again.
//
// The sums of one key by a group's jobs go in as one sum of their amounts.
//
// When a shared commit fails, the checks of the group are read again and each
// job learns which of its own checks failed; the jobs none of whose checks
// failed go again (a moved sequence counter is read afresh; _sort_out.ts). A commit that
// throws is retried job by job. No job is committed twice: the operation that
// commits is the one whose result it gets.

import { keyId, withLockRetry } from "../kv/mod.ts";
import { applySums, type SumTotals } from "./_atomic_recorder.ts";
import { isRemote } from "./_remote.ts";
import { InFlightCap } from "./_in_flight.ts";
import { sortOut } from "./_sort_out.ts";
import { groupCommitted } from "../telemetry/mod.ts";
import {
  buildEntry,
  type Busy,
  busyOf,
  type Counter,
  countersKnown,
  type Entry,
  type GroupJob,
  type GroupResult,
  keysOf,
  lastNumber,
  LOCAL_CHECKS,
  readCounters,
  REMOTE_CHECKS,
  takeGroup,
} from "./_group_take.ts";

export type { GroupJob, GroupResult };

/** A group sent to the KV, and how its commit went. */
type Sent =
  & { group: Entry[]; last: Map<string, { key: Deno.KvKey; value: number }> }
  & (
    | { kind: "committed"; result: Deno.KvCommitResult }
    | { kind: "refused"; checks: number }
    | { kind: "threw"; checks: number; error: unknown }
  );

/**
 * A group in flight, its sequences' last numbers, and the keys it touches
 * (see {@linkcode Busy}), worked out when a group is taken while it is in
 * flight: on a local KV, one group at a time, never (sets of every key of
 * every group, built for nothing).
 */
interface Flight {
  group: Entry[];
  busy?: Busy;
  last: Map<string, { key: Deno.KvKey; value: number }>;
}

/** The group committer of one KV object. */
class GroupCommitter {
  #kv: Deno.Kv;
  #waiting: Entry[] = [];
  #filling = false;
  #counters = new Map<string, Counter>();
  /** Whether the KV is remote; `undefined` until asked. */
  #remote: boolean | undefined;
  /**
   * Checks one operation may carry: a local KV's 100, a remote KV's ten
   * (also learnt from a commit of more refused, should the probe have failed).
   */
  #maxChecks = LOCAL_CHECKS;
  #inFlight = new Set<Flight>();
  /** A remote KV's learnt cap of groups in flight (a local KV has one group in flight). */
  #cap: InFlightCap | null = null;
  /** The last number of each sequence in a group in flight (one group at a time holds a sequence). */
  #seqInFlight = new Map<string, { key: Deno.KvKey; value: number }>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  submit(job: GroupJob): Promise<GroupResult> {
    const { promise, resolve } = Promise.withResolvers<GroupResult>();
    const seqId = job.sequence ? keyId(job.sequence) : null;
    const entry: Entry = { job, seqId, first: 0, tries: 0, alone: false, resolve };
    if (!this.#prebuild(entry)) return promise;
    const cap = this.#cap;
    if (cap !== null) {
      const { epoch } = cap;
      const start = performance.now();
      void promise.then(() => cap.observe(epoch, performance.now() - start));
    }
    this.#waiting.push(entry);
    this.#fill();
    return promise;
  }

  /** Sends groups while jobs wait, a group may go up, and they touch no key of a group in flight. */
  #fill(): void {
    if (this.#filling) return; // the loop looks again after each of its waits
    this.#filling = true;
    void this.#fillLoop();
  }

  async #fillLoop(): Promise<void> {
    try {
      if (this.#remote === undefined) await this.#detect();
      while (this.#waiting.length > 0 && this.#inFlight.size < this.#maxInFlight()) {
        if (!countersKnown(this.#waiting, this.#counters)) await readCounters(this.#kv, this.#waiting, this.#counters);
        const group = takeGroup(this.#waiting, this.#counters, this.#maxChecks, this.#busyIds());
        if (group.length === 0) break; // each waiting job touches a key of a group in flight
        this.#launch(group);
      }
      // Jobs left waiting for the cap (not for a key in flight): a higher cap could change something.
      if (this.#waiting.length > 0 && this.#cap !== null && this.#inFlight.size >= this.#cap.value) this.#cap.bound();
    } catch (error) {
      // Reading a counter failed: every waiting job fails; the next submit starts afresh.
      for (const entry of this.#waiting.splice(0)) entry.resolve({ kind: "error", error });
    } finally {
      // Cleared in the same turn as the loop's last look, so no group that settles afterwards finds it set.
      this.#filling = false;
    }
  }

  #maxInFlight(): number {
    return this.#cap === null ? 1 : this.#cap.value;
  }

  /** The keys that groups in flight touch (`null` when none is in flight). */
  #busyIds(): Busy | null {
    if (this.#inFlight.size === 0) return null;
    // A group's recorders do not change while it is in flight: its keys are worked out once.
    return busyOf([...this.#inFlight].map((flight) => flight.busy ??= keysOf(flight.group)));
  }

  /** Sends a group; when it settles, tells its jobs, and sends the next before they learn it. */
  #launch(group: Entry[]): void {
    const flight: Flight = { group, last: new Map() };
    this.#inFlight.add(flight);
    void this.#send(group, flight.last).then(async (sent) => {
      this.#inFlight.delete(flight);
      for (const id of sent.last.keys()) this.#seqInFlight.delete(id);
      if (sent.kind === "committed") {
        for (const [id, { value }] of sent.last) {
          this.#counters.set(id, { value, versionstamp: sent.result.versionstamp });
        }
        // The next group goes to the KV before this one's jobs learn their result, so the KV works on
        // it while they finish their requests (its numbers follow from this commit's counters).
        this.#fill();
        let postbacks = 0;
        for (const entry of sent.group) postbacks += entry.job.postbacks ?? 0;
        if (postbacks > 0) groupCommitted(postbacks); // webhooks.commit.postbacks
        for (const entry of sent.group) {
          entry.resolve({ kind: "committed", versionstamp: sent.result.versionstamp, first: entry.first, postbacks });
        }
      } else {
        await this.#failed(sent);
        this.#fill();
      }
    });
  }

  async #detect(): Promise<void> {
    this.#remote = await isRemote(this.#kv);
    if (this.#remote) {
      this.#maxChecks = REMOTE_CHECKS;
      this.#cap = new InFlightCap();
    }
  }

  /**
   * Builds a submitted job's writes at the numbers it will take unless a job
   * ahead of it fails: after the last number given to the jobs waiting, else
   * to the group in flight, else the counter's. Not built yet when its
   * counter is not known (it is read before the job's group is taken).
   * False when `build` threw: the job has failed, and is not queued.
   */
  #prebuild(entry: Entry): boolean {
    const { seqId } = entry;
    let first = 0;
    if (seqId !== null) {
      const counter = this.#counters.get(seqId);
      if (counter === undefined) return true;
      let last = this.#seqInFlight.get(seqId)?.value ?? counter.value;
      for (let i = this.#waiting.length - 1; i >= 0; i--) {
        const ahead = this.#waiting[i];
        if (ahead.seqId !== seqId) continue;
        if (ahead.recorder === undefined) return true;
        last = lastNumber(ahead);
        break;
      }
      first = last + 1;
    }
    return buildEntry(entry, first);
  }

  /** Builds a group's operation and sends it to the KV (before its first await); settles without throwing. */
  async #send(group: Entry[], last: Map<string, { key: Deno.KvKey; value: number }>): Promise<Sent> {
    const checks = new Map<string, Deno.AtomicCheck>();
    try {
      const op = this.#kv.atomic();
      // Jobs that add to one counter (the relay's wake counter, say) add to it once here, their amounts summed,
      // and first: a sum KV refuses (a counter edited into junk) then fails the commit before anything else of it
      // is written (Deno KV keeps the mutations ahead of a refused sum).
      const sums: SumTotals = new Map();
      for (const entry of group) entry.recorder!.gatherSums(sums);
      applySums(op, sums);
      for (const entry of group) {
        const { checks: own, checkIds } = entry.recorder!;
        for (let i = 0; i < own.length; i++) checks.set(checkIds[i], own[i]);
        const seq = entry.job.sequence;
        if (seq) {
          const id = entry.seqId!;
          if (!last.has(id)) op.check({ key: seq, versionstamp: this.#counters.get(id)!.versionstamp });
          last.set(id, { key: seq, value: lastNumber(entry) });
          this.#seqInFlight.set(id, last.get(id)!);
        }
        // A step the recorder took that KV refuses (a sum of a number, a fractional expireIn) throws here:
        // the group is then tried job by job, and that job alone fails.
        entry.recorder!.replay(op, sums);
      }
      op.check(...checks.values()); // each key once: KV Connect counts every check
      for (const { key, value } of last.values()) op.set(key, value);
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
    if (sent.kind === "refused") {
      const again = await sortOut(this.#kv, group, [...last.values()].map(({ key }) => key), this.#counters);
      return void this.#waiting.unshift(...again);
    }
    if (
      sent.checks + last.size > REMOTE_CHECKS && this.#maxChecks > REMOTE_CHECKS &&
      /too many checks/i.test(String((sent.error as Error | null)?.message))
    ) {
      // Refused for its more than ten checks: a remote KV. From now on at most ten, and this group again.
      this.#maxChecks = REMOTE_CHECKS;
      this.#waiting.unshift(...group);
    } else if (group.length === 1) group[0].resolve({ kind: "error", error: sent.error });
    else this.#waiting.unshift(...group.map((entry) => ({ ...entry, alone: true })));
  }
}

const committers = new WeakMap<Deno.Kv, GroupCommitter>();

/**
 * Commits a job together with the other jobs ready at the same time on this
 * KV object. Never rejects: failures are results.
 */
export function submitToGroup(kv: Deno.Kv, job: GroupJob): Promise<GroupResult> {
  let committer = committers.get(kv);
  if (committer === undefined) committers.set(kv, committer = new GroupCommitter(kv));
  return committer.submit(job);
}
