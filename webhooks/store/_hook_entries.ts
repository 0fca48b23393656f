// Every entry stored under the webhook records' prefix, one edited into junk too (not an object, another id's
// record): what `list` passes over, for the command line, which must show an operator that something is stored
// under an id and that it is damaged. What is wrong is named without quoting a value.

import { unlessKeyTooLarge, WEBHOOK_PREFIX, webhookKey, withLockRetry } from "../kv/mod.ts";

/** One entry under the records' prefix: the id of its key, what it holds, and what is wrong with it. */
export interface HookEntry {
  /** The record id its key names. */
  id: string;
  /** The value stored, as KV gives it back. */
  stored: unknown;
  /** What is wrong with it (`it is a string, not a webhook record`); `null` when it is a record of its key's id. */
  damaged: string | null;
}

/** A value's kind, as a message says it: the value itself is never shown. */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * What is wrong with the value stored at the key of record `id` as a record: `null` when it is an object whose `id`
 * is the key's (as `list` takes it; the shape of its other fields is the reader's to judge).
 *
 * @param id the record id of its key
 * @param stored the value stored there
 * @returns what is wrong, or `null`
 */
export function hookEntryDamage(id: string, stored: unknown): string | null {
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) {
    return `it is ${kind(stored)}, not a webhook record`;
  }
  const own = (stored as { id?: unknown }).id;
  if (own === undefined) return "'id' is missing";
  if (own !== id) return `'id' must be the id of its key, got ${typeof own === "string" ? "another" : kind(own)}`;
  return null;
}

/**
 * A page of the entries under the records' prefix, in key order, each as {@linkcode HookEntry}; a key that names no
 * record id (`["webhook", 42]`) is one no call can name, and is not listed.
 *
 * @param kv the KV
 * @param limit the most entries a page reads
 * @param cursor KV's cursor of the page before; absent for the first
 * @returns the page and KV's cursor of the next (`""` on the last)
 */
export async function listHookEntries(
  kv: Deno.Kv,
  limit: number,
  cursor?: string,
): Promise<{ values: HookEntry[]; cursor: string }> {
  return await withLockRetry(async () => {
    const iter = kv.list({ prefix: WEBHOOK_PREFIX }, { limit, cursor });
    const values: HookEntry[] = [];
    let read = 0;
    for await (const { key, value } of iter) {
      read++;
      if (key.length !== 2 || typeof key[1] !== "string") continue;
      values.push({ id: key[1], stored: value, damaged: hookEntryDamage(key[1], value) });
    }
    return { values, cursor: read < limit ? "" : iter.cursor };
  });
}

/**
 * What is wrong with the entry stored at the key of record `id`, as {@linkcode hookEntryDamage} says it; `null` when
 * nothing is stored there (or an id too long for a key), or a record of that id is.
 *
 * @param kv the KV
 * @param id the record id
 * @returns what is wrong, or `null`
 */
export async function hookEntryDamageAt(kv: Deno.Kv, id: string): Promise<string | null> {
  const entry = await unlessKeyTooLarge(() => withLockRetry(() => kv.get(webhookKey(id))), null);
  return entry === null || entry.versionstamp === null ? null : hookEntryDamage(id, entry.value);
}
