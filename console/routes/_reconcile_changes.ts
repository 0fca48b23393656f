/**
 * What the reconcile fixes changed, for the page the POST leads to: kept in
 * KV for a few minutes under the session that applied them and the
 * community, never taken from the query, so a link cannot make the page
 * claim counts that did not happen.
 *
 * @module
 */

import type { Context } from "hono";
import { type ConsoleEnv, type Deps, sessionIdOf } from "../lib/context.ts";
import { reconcileChangesKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";

/** How long the counts are kept for the page (and its reloads) to say. */
const CHANGES_TTL_MS = 5 * 60_000;

/** How many records each fix changed. */
export interface ReconcileChanges {
  /** Orphans adopted (a pending registration explained them). */
  adopted: number;
  /** Dangling records removed. */
  removed: number;
  /** Abandoned registrations cleared. */
  cleared: number;
  /** Unexplained orphans deleted on the platform. */
  deleted: number;
  /** Records that differed from their hook, saved as the platform has it (absent in counts kept before it was). */
  leveled?: number;
}

/** `n` and the noun, singular for one: `1 orphan`, `2 orphans`. */
function count(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

function keyOf(c: Context<ConsoleEnv>, deps: Deps, tenantId: string): Deno.KvKey | null {
  const sessionId = sessionIdOf(c, deps);
  return sessionId ? reconcileChangesKey(sessionId, tenantId) : null;
}

/** Whether a kept value is a {@linkcode ReconcileChanges}: four whole counts of zero or more. */
function isChanges(value: unknown): value is ReconcileChanges {
  if (typeof value !== "object" || value === null) return false;
  const counts = value as Record<string, unknown>;
  return ["adopted", "removed", "cleared", "deleted"].every((name) => {
    const n = counts[name];
    return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
  });
}

/** Keeps what the fixes of `tenantId`'s community changed, for this session's next page of it to say. */
export async function keepChanges(
  c: Context<ConsoleEnv>,
  deps: Deps,
  tenantId: string,
  changes: ReconcileChanges,
): Promise<void> {
  const key = keyOf(c, deps, tenantId);
  if (key) await retryLocked(() => deps.kv.set(key, changes, { expireIn: CHANGES_TTL_MS }));
}

/**
 * The notice after applying the fixes, with what they changed: only on the
 * page `?notice=fixed` leads to, and only from what this session kept.
 */
export async function changedNotice(c: Context<ConsoleEnv>, deps: Deps, tenantId: string): Promise<string | undefined> {
  if (c.req.query("notice") !== "fixed") return undefined;
  const key = keyOf(c, deps, tenantId);
  const changes = key ? (await deps.kv.get<unknown>(key)).value : null;
  if (!changes) return undefined;
  // Counts edited by hand into junk (or left by a bad write) say only that the fixes are applied.
  if (!isChanges(changes)) return "The fixes are applied.";
  const parts = [
    `${count(changes.adopted, "hook")} adopted`,
    `${count(changes.removed, "dangling record")} removed`,
    `${count(changes.cleared, "abandoned registration")} cleared`,
    `${count(changes.deleted, "unexplained orphan")} deleted on the platform`,
  ];
  const leveled = changes.leveled;
  if (typeof leveled === "number" && Number.isSafeInteger(leveled) && leveled > 0) {
    parts.push(`${count(leveled, "record")} saved as the platform has ${leveled === 1 ? "its hook" : "their hooks"}`);
  }
  return `The fixes are applied: ${parts.join(", ")}.`;
}
