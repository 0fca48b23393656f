// The index entries of one tenant, for `hooks list --tenant`: each one under the tenant's index, what `list` passes
// over too (an entry edited by hand into junk, an entry of the earlier layout whose record is gone), and one `list`
// shows although its record is missing, junk or another tenant's (a copy left behind), each named as damaged in the
// form of `listHookEntries`, so the tenant's listing says what the listing of every tenant says. Reads only.

import { getManyBatched, unlessKeyTooLarge, webhookByTenantPrefix, webhookKey } from "../kv/mod.ts";
import { keyedEntries } from "./_entry_pages.ts";
import { type HookEntry, hookEntryDamage } from "./_hook_entries.ts";

/**
 * What is wrong with the index entry of record `id` under tenant `tenantId`, given what it holds and the record
 * stored under `id` (`undefined` when none is); `null` when it is the record's copy (or, of the earlier layout, its
 * id) and the record is whole and the tenant's.
 */
function tenantEntryDamage(tenantId: string, id: string, stored: unknown, record: unknown): string | null {
  if (typeof stored === "string") {
    if (stored !== id) return "its index entry names another record's id";
  } else {
    const own = hookEntryDamage(id, stored);
    if (own !== null) return `its index entry: ${own}`;
  }
  if (record === undefined) return "no record is stored under its id (its index entry was left behind)";
  const damage = hookEntryDamage(id, record);
  if (damage !== null) return `its record: ${damage}`;
  if ((record as { tenantId?: unknown }).tenantId !== tenantId) {
    return "its record is not this tenant's (its index entry was left behind)";
  }
  return null;
}

/**
 * A page of the index entries of tenant `tenantId`, in key order, each as a {@linkcode HookEntry}: `stored` is what
 * `list` shows of a whole one (its copy, or the record an entry of the earlier layout names); `damaged` says what is
 * wrong with one that is not whole. A tenant id too long for a key, or with a lone surrogate, has none.
 *
 * @param kv the KV
 * @param tenantId the tenant
 * @param limit the most entries a page reads
 * @param cursor KV's cursor of the page before; absent for the first
 * @returns the page and KV's cursor of the next (`""` on the last)
 */
export async function listTenantHookEntries(
  kv: Deno.Kv,
  tenantId: string,
  limit: number,
  cursor?: string,
): Promise<{ values: HookEntry[]; cursor: string }> {
  // KV writes a lone surrogate as U+FFFD, so such a tenant's prefix is another tenant's ("t\uD800" lists
  // "t\uFFFD"'s): none of what is there is this tenant's (the library's list shows none of it either).
  if (!tenantId.isWellFormed()) return { values: [], cursor: "" };
  return await unlessKeyTooLarge(async () => {
    const page = await keyedEntries(kv, webhookByTenantPrefix(tenantId), limit, cursor);
    const records = await getManyBatched(kv, page.values.map(({ id }) => webhookKey(id)));
    const values = page.values.map(({ id, stored }, i): HookEntry => {
      const record = records[i].versionstamp === null ? undefined : records[i].value;
      const damaged = tenantEntryDamage(tenantId, id, stored, record);
      return { id, stored: damaged === null && typeof stored === "string" ? record : stored, damaged };
    });
    return { values, cursor: page.cursor };
  }, { values: [], cursor: "" });
}
