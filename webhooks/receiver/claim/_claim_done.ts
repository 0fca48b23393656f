// The done marks of the receiver's replay claims (_claim.ts). The done mark
// is in KV before the 200 is answered. Marks of postbacks answered at the
// same time share commits: while four writers are busy on one KV object, the
// marks asked for wait and go together in the next commit.

import { withLockRetry } from "../../kv/mod.ts";
import { commitEnded, commitStarted, groupCommitted } from "../../telemetry/mod.ts";
import { DONE, heldChecks, type HeldClaim } from "./_claim.ts";

/** A done mark waiting for its commit, and how its request learns the outcome. */
interface Mark {
  held: HeldClaim;
  /** `shared`: the marks in the commit that wrote it. */
  settle(written: boolean, shared?: number): void;
}

/** The done marks of one KV object that wait for a writer, and how many writers commit marks now. */
interface DoneQueue {
  waiting: Mark[];
  writers: number;
}

const queues = new WeakMap<Deno.Kv, DoneQueue>();

/** How many checks one commit of done marks carries at most (ten: what every KV, KV Connect too, takes). */
const DONE_CHECKS = 10;
/**
 * How many writers commit marks at once on one KV object, each one commit of
 * marks at a time (or, after its group failed, that group's marks one by one,
 * side by side); the marks asked for while all are busy wait and group.
 */
const DONE_WRITERS = 4;

/**
 * Marks a held claim done; a claim taken over meanwhile is left alone. A
 * mark is committed at once while fewer than {@linkcode DONE_WRITERS}
 * writers are busy on this KV object; while all are, the marks asked for
 * wait and go together in the next commit (up to ten checks), so
 * postbacks answered at the same time share commits. Resolves `true` once
 * the mark is in KV, `false` when it could not be written (the claim was
 * taken over meanwhile, or the KV failed: then the claim stays pending until
 * its lease runs out, as after a crash). Never rejects.
 */
export function finish(kv: Deno.Kv, held: HeldClaim): Promise<boolean> {
  let queue = queues.get(kv);
  if (queue === undefined) queues.set(kv, queue = { waiting: [], writers: 0 });
  const { promise, resolve } = Promise.withResolvers<boolean>();
  const span = commitStarted(); // webhooks.commit, under the request's span; none with telemetry off
  const settle = span === undefined ? resolve : (written: boolean, shared?: number) => {
    commitEnded(span, shared, written);
    resolve(written);
  };
  queue.waiting.push({ held, settle });
  if (queue.writers < DONE_WRITERS) {
    queue.writers++;
    void writeWaiting(kv, queue);
  }
  return promise;
}

/** The next group of marks: as many waiting as fit ten checks (always at least one). */
function takeMarks(queue: DoneQueue): Mark[] {
  let checks = queue.waiting[0].held.keys.length;
  let n = 1;
  while (n < queue.waiting.length && checks + queue.waiting[n].held.keys.length <= DONE_CHECKS) {
    checks += queue.waiting[n++].held.keys.length;
  }
  return queue.waiting.splice(0, n);
}

async function writeWaiting(kv: Deno.Kv, queue: DoneQueue): Promise<void> {
  while (queue.waiting.length > 0) {
    const group = takeMarks(queue);
    if (await commitMarks(kv, group)) {
      groupCommitted(group.length);
      for (const mark of group) mark.settle(true, group.length);
    } else if (group.length === 1) {
      group[0].settle(false);
    } else {
      // One of the group was taken over meanwhile, or its commit failed: each on its own, side by side.
      await Promise.all(group.map(async (mark) => {
        const written = await commitMarks(kv, [mark]);
        if (written) groupCommitted(1);
        mark.settle(written, 1);
      }));
    }
  }
  queue.writers--;
}

/** Commits these marks in one atomic operation, each checked by its claim's versionstamp. */
async function commitMarks(kv: Deno.Kv, marks: Mark[]): Promise<boolean> {
  return await withLockRetry(() => {
    const op = kv.atomic();
    for (const { held } of marks) {
      op.check(...heldChecks(held));
      for (const key of held.keys) op.set(key, DONE, { expireIn: held.expireIn });
    }
    return op.commit();
  }).then((result) => result.ok, () => false);
}
