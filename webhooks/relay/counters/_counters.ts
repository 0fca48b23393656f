// The relay's counters (the outbox's bump, the destinations' version, each
// partition's take counter) are bumped with KV's `sum`, and only their
// versionstamps are read. KV refuses a `sum` on any value but a 64-bit
// counter: one edited by hand into junk (a number, null, a string) made every
// commit that bumps it throw, every take or write or destination change, for
// good. A junk one is set back to a counter (checked: a change meanwhile is
// left as it is), by the reader that meets it, or by a commit refused for it.

import { retryWhileLocked } from "../../kv/mod.ts";

/** Whether `entry` holds what `sum` adds to: nothing yet, or a 64-bit counter. */
export function isCounter(entry: Deno.KvEntryMaybe<unknown>): boolean {
  return entry.versionstamp === null || entry.value instanceof Deno.KvU64;
}

/** Sets the counter of `entry` right when it holds junk; resolves with its versionstamp after (read again if moved). */
export async function mendCounter(kv: Deno.Kv, entry: Deno.KvEntryMaybe<unknown>): Promise<string | null> {
  if (isCounter(entry)) return entry.versionstamp;
  const result = await retryWhileLocked(() => kv.atomic().check(entry).set(entry.key, new Deno.KvU64(0n)).commit());
  return result.ok ? result.versionstamp : (await kv.get(entry.key)).versionstamp;
}

/** Sets the counters at `keys` right where they hold junk (one read). */
export async function mendCounters(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<void> {
  for (const entry of await kv.getMany(keys)) await mendCounter(kv, entry);
}

/** Whether `error` is KV's refusal of a `sum` on a value that is no counter. */
function isSumRefused(error: unknown): boolean {
  return error instanceof TypeError && error.message.includes("non-U64");
}

/**
 * Commits `atomic` (retried while the KV is locked); refused for a junk counter it sums, sets `counters` right and
 * commits it once more. Nothing is added to a commit that goes through. The local KV applies the mutations before a
 * refused `sum` (no rollback): a caller puts its sums first, so a refused commit wrote nothing.
 */
export async function commitMending(
  kv: Deno.Kv,
  atomic: Deno.AtomicOperation,
  counters: Deno.KvKey[],
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  try {
    return await retryWhileLocked(() => atomic.commit());
  } catch (error) {
    if (!isSumRefused(error)) throw error;
    await mendCounters(kv, counters);
    return await retryWhileLocked(() => atomic.commit());
  }
}
