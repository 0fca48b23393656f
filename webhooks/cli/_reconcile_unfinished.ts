// The line of `reconcile` on unfinished registrations that no platform hook explains: a register killed before the
// platform made its hook (or whose hook was deleted there since) leaves an entry that refuses the same register and
// tells to run `reconcile NAME --fix`. The report has no row for such an entry (it explains no orphan), so without
// this line a reconcile run before the entry is a minute old said nothing of it, and a --fix said "0 left": the
// operator took it as cleared, and the register was refused again.

import type { Orphan, PendingRegistration } from "../types.ts";
import { sameRequest, STALE_AFTER_MS } from "../platform/mod.ts";

/**
 * What to say of the entries of `before` (read before reconcile) that explain none of `orphans`, given `after` (read
 * after it) and whether this run fixed; `null` when there are none.
 */
export function unfinishedLine(
  before: PendingRegistration[],
  after: PendingRegistration[],
  orphans: Orphan[],
  fix: boolean,
  now: number,
): string | null {
  const unexplained = before.filter((p) => !orphans.some((o) => o.entity && sameRequest(p, o.entity)));
  if (unexplained.length === 0) return null;
  const left = unexplained.filter((p) => after.some((a) => a.id === p.id));
  const n = unexplained.length;
  const head = `${n} unfinished registration${n === 1 ? "" : "s"} with no hook on the platform (a register ended ` +
    "before the platform made the hook, or the hook was deleted there)";
  if (fix) {
    const cleared = n - left.length;
    return left.length === 0
      ? `${head}: cleared`
      : `${head}: ${cleared} cleared, ${left.length} left: ${whenCleared(left, now, "run reconcile --fix again")}`;
  }
  return `${head}: ${whenCleared(unexplained, now, `--fix clears ${n === 1 ? "it" : "them"}`)}`;
}

/** When `action` clears `entries` (reconcile takes an entry once it is a minute old): now, or in how many seconds. */
function whenCleared(entries: PendingRegistration[], now: number, action: string): string {
  const youngest = Math.max(...entries.map((p) => Number(p.startedAt) || 0));
  const wait = Math.ceil((youngest + STALE_AFTER_MS - now) / 1000);
  return wait > 0 ? `${action} once a minute old, in ${wait} s` : `${action} now`;
}
