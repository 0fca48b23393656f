/**
 * `commitInGroup`: the group commit the receiver's `write` mode uses, for a
 * service's other writes to the same KV (a log numbered in the same
 * sequence, counters), so they share the receiver's commits.
 *
 * @module
 */

import { type GroupJob, type GroupResult, submitToGroup } from "./_group_commit.ts";

export type { GroupJob, GroupResult };

/**
 * Commits a job's writes in one atomic operation shared with the other jobs
 * ready at the same time on this KV object (the receiver's `write`
 * postbacks among them), within the KV's limits: 100 checks on a local KV,
 * ten over KV Connect (asked once per KV object, before its first group),
 * 1,000 mutations and 760 kB of mutations. A group does not wait for the one
 * before it unless they touch the same keys: on a local KV one group is in
 * flight at a time and jobs that arrive meanwhile form the next; on a remote
 * KV up to 16 groups are in flight at once. A job whose keys another job of
 * the group, or of a group in flight, touches waits for the next group. With `sequence`, the job
 * takes `count` consecutive numbers of that counter (a number at the key,
 * bumped and checked in the same commit), so numbers follow commit order
 * across processes; `build` gets the first. `build` runs as the job is
 * submitted, at the numbers it will take unless a job ahead of it fails
 * (once this KV object's counter has been read; before that, when its group
 * is taken), so a group is ready to send when the KV is free. When the
 * shared commit fails, the checks are read again: a job whose own checks
 * failed gets `failed` with them, and the others go again. Never rejects.
 *
 * @param kv The KV to commit to.
 * @param job Its checks, its sequence and count, and `build`, which adds its
 *   writes (called once; again only if the job's sequence numbers move).
 * @returns `committed` with the versionstamp, the first number and how many postbacks the commit stored, `failed` with
 *   the checks that no longer held, or `error` (build threw, too large for
 *   one operation, or KV failed); only `committed` wrote anything.
 * @throws {TypeError} When `kv` is not a KV or `job` has no `checks` array or no `build` function.
 *
 * @example Number two log lines in commit order
 * ```ts
 * import { commitInGroup } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const line = (text: string) =>
 *   commitInGroup(kv, {
 *     checks: [],
 *     sequence: ["log_seq"],
 *     count: 1,
 *     build: (atomic, first) => atomic.set(["log", first], text),
 *   });
 * const [a, b] = await Promise.all([line("one"), line("two")]);
 * assert.equal(a.kind, "committed");
 * assert.equal(b.kind, "committed");
 * assert.equal((await kv.get(["log_seq"])).value, 2);
 * assert.equal((await kv.get(["log", 2])).value, "two");
 * kv.close();
 * ```
 */
export function commitInGroup(kv: Deno.Kv, job: GroupJob): Promise<GroupResult> {
  if (typeof kv !== "object" || kv === null || typeof kv.atomic !== "function") {
    throw new TypeError("Cannot commit: 'kv' must be a Deno.Kv");
  }
  if (typeof job !== "object" || job === null || typeof job.build !== "function" || !Array.isArray(job.checks)) {
    throw new TypeError("Cannot commit: 'job' must have 'checks' (an array) and 'build' (a function)");
  }
  return submitToGroup(kv, job);
}
