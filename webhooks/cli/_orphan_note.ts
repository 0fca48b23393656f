// What the EXPLAINED BY column of `reconcile` says of an orphan (a platform hook with no record here). A hook whose
// registration is still younger than reconcile's `staleAfter` (a minute) has no explaining entry in the report, yet
// is no stranger: its register may still be running, or was killed after the platform made the hook, and a
// `reconcile --fix` run once the entry is a minute old adopts it. "nothing" would have an operator delete it or
// register again (a second hook).

import type { Orphan, PendingRegistration } from "../types.ts";
// How old a registration's entry must be before reconcile adopts its hook (reconcile's default `staleAfter`).
import { STALE_AFTER_MS } from "../platform/mod.ts";

/**
 * The EXPLAINED BY cell of `orphan`: its registration's id when the report has it; a registration of its callback
 * in `pendings` (read after the reconcile) still too young to adopt, with when to run `reconcile --fix` again; else
 * `nothing`.
 */
export function orphanNote(orphan: Orphan, pendings: PendingRegistration[], now: number): string {
  if (orphan.pending) return `registration ${orphan.pending.id}`;
  const callback = orphan.entity?.callback;
  const young = pendings.find((p) => p.callback === callback && now - p.startedAt < STALE_AFTER_MS);
  if (!young) return "nothing";
  const age = Math.max(0, Math.floor((now - young.startedAt) / 1000));
  const wait = Math.max(1, Math.ceil((young.startedAt + STALE_AFTER_MS - now) / 1000));
  return `registration ${young.id}, begun ${age} s ago, may still finish: run reconcile --fix again in ${wait} s`;
}
