// After a shared commit whose checks failed: every check of the group is read
// again, each job learns which of its own checks failed, and the jobs none of
// whose checks failed go again (a moved sequence counter read afresh).

import { getManyBatched, keyId } from "../kv/mod.ts";
import { type Counter, counterOf, type Entry, MAX_TRIES } from "./_group_take.ts";

/**
 * Reads `group`'s checks and `sequences`' counters again (the counters into
 * `counters`); tells each job whose checks failed, or every job when the read
 * fails; resolves with the jobs to send again, in order.
 */
export async function sortOut(
  kv: Deno.Kv,
  group: Entry[],
  sequences: Deno.KvKey[],
  counters: Map<string, Counter>,
): Promise<Entry[]> {
  const all = new Map<string, Deno.KvKey>();
  for (const entry of group) {
    const { checks, checkIds } = entry.recorder!;
    for (let i = 0; i < checks.length; i++) all.set(checkIds[i], checks[i].key);
  }
  for (const key of sequences) all.set(keyId(key), key);
  let entries: Deno.KvEntryMaybe<unknown>[];
  try {
    entries = await getManyBatched(kv, [...all.values()]);
  } catch (error) {
    for (const entry of group) entry.resolve({ kind: "error", error });
    return [];
  }
  const now = new Map(entries.map((entry) => [keyId(entry.key), entry.versionstamp]));
  for (const key of sequences) {
    counters.set(
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
  return again.filter((entry) => entry.tries < MAX_TRIES);
}
