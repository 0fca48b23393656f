// Pages of every entry stored under a prefix keyed by one string id (`["community", tenantId]`, `["webhook", id]`),
// whatever it holds: the command line's view of records edited by hand into junk, which the stores' own lists pass
// over.

import { withLockRetry } from "../kv/mod.ts";

/** One entry under a prefix: the string id of its key and the value stored there, as KV gives it back. */
export interface KeyedEntry {
  id: string;
  stored: unknown;
}

/**
 * A page of the entries under `prefix`, in key order; a key that is not the prefix and one string id (`[p, 42]`,
 * `[p, id, "x"]`) is one no call can name, and is not listed.
 *
 * @param kv the KV
 * @param prefix the records' prefix, one part long
 * @param limit the most entries a page reads
 * @param cursor KV's cursor of the page before; absent for the first
 * @returns the page and KV's cursor of the next (`""` on the last)
 */
export async function keyedEntries(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  limit: number,
  cursor?: string,
): Promise<{ values: KeyedEntry[]; cursor: string }> {
  return await withLockRetry(async () => {
    const iter = kv.list({ prefix }, { limit, cursor });
    const values: KeyedEntry[] = [];
    let read = 0;
    for await (const { key, value } of iter) {
      read++;
      if (key.length === prefix.length + 1 && typeof key[prefix.length] === "string") {
        values.push({ id: key[prefix.length] as string, stored: value });
      }
    }
    return { values, cursor: read < limit ? "" : iter.cursor };
  });
}
