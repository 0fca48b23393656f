// Webhook records edited by hand (or by a buggy older tool) into junk, for the command line: every entry stored under
// the records' prefix, one that is not a record of its key's id too (what `list` passes over), so an operator sees
// that something is stored under an id and that it is damaged; and a record whose fields a table shows hold an
// object, a list or null. What is wrong is named without quoting a value.

import { unlessKeyTooLarge, WEBHOOK_PREFIX, webhookKey, withLockRetry } from "../kv/mod.ts";
import { keyedEntries } from "./_entry_pages.ts";
import { kindOf } from "../_util.ts";

/** One entry under the records' prefix: the id of its key, what it holds, and what is wrong with it. */
export interface HookEntry {
  /** The record id its key names. */
  id: string;
  /** The value stored, as KV gives it back. */
  stored: unknown;
  /** What is wrong with it (`it is a string, not a webhook record`); `null` when it is a record of its key's id. */
  damaged: string | null;
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
    return `it is ${kindOf(stored)}, not a webhook record`;
  }
  const own = (stored as { id?: unknown }).id;
  if (own === undefined) return "'id' is missing";
  if (own !== id) return `'id' must be the id of its key, got ${typeof own === "string" ? "another" : kindOf(own)}`;
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
  const page = await keyedEntries(kv, WEBHOOK_PREFIX, limit, cursor);
  const values = page.values.map(({ id, stored }) => ({ id: id, stored, damaged: hookEntryDamage(id, stored) }));
  return { values, cursor: page.cursor };
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

/** Whether a table can show `value` as text: a string, a number, a boolean or a BigInt. */
export function isCellText(value: unknown): boolean {
  return ["string", "number", "boolean", "bigint"].includes(typeof value);
}

function shownField(value: unknown, name: string): string[] {
  return value === undefined || isCellText(value) ? [] : [`'${name}' must be a string, got ${kindOf(value)}`];
}

/**
 * What is wrong with `hook` for a table, each fault named and joined by `; `; `null` when every field a table shows
 * can be shown as text: `entity` an object, `events` an array of such values, `id`, `tenantId`, `callback` and
 * `resources.self.ref` such values, when present.
 */
export function hookDamage(hook: unknown): string | null {
  if (typeof hook !== "object" || hook === null || Array.isArray(hook)) return `it is ${kindOf(hook)}`;
  const record = hook as Record<string, unknown>;
  const faults = [...shownField(record.id, "id"), ...shownField(record.tenantId, "tenantId")];
  const entity = record.entity;
  if (typeof entity !== "object" || entity === null || Array.isArray(entity)) {
    faults.push(`'entity' must be an object, got ${kindOf(entity)}`);
  } else {
    const { events, callback, resources } = entity as Record<string, unknown>;
    if (events !== undefined && !(Array.isArray(events) && events.every(isCellText))) {
      const got = Array.isArray(events) ? "one holding an object, a list or null" : kindOf(events);
      faults.push(`'entity.events' must be an array of strings, got ${got}`);
    }
    faults.push(...shownField(callback, "entity.callback"));
    const self = (resources as { self?: unknown } | null | undefined)?.self;
    faults.push(...shownField((self as { ref?: unknown } | null | undefined)?.ref, "entity.resources.self.ref"));
  }
  return faults.length === 0 ? null : faults.join("; ");
}
