// The URL index of the destinations: at ["relay_destination_url",
// sha256(url)], the ids of the unpinned destinations at that URL. Every add,
// change of URL or hooks, and removal of one of them checks and rewrites it
// in the commit that writes the destination, so two such changes made at
// once (in two processes, say) are decided one after the other: with
// `unique`, one URL never gets one hook's postbacks from two destinations
// (without it, the same URL may be added twice). Pinned destinations
// (`listen`'s) are left out: their URL names a place on the machine of the
// worker started for them, and two developers may both forward to
// `http://localhost:3000/`.

import type { Destination } from "../_destination_types.ts";
import { destinationKey, destinationUrlKey } from "../_keys.ts";

/** The index entry of one URL as read: what to check, and the ids it holds. */
interface UrlSlot {
  key: Deno.KvKey;
  versionstamp: string | null;
  ids: string[];
}

/** A destination at the same URL that takes a hook of the new one: which, and the hook (`null`: every hook). */
interface UrlClash {
  destination: Destination;
  hook: string | null;
}

async function hashOf(url: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads the index entry of `url` (a normalised href). A URL without one has
 * no destination added by this version; one added by an earlier version
 * (which kept no index) is found in `listAll`'s list, and the entry written
 * with the next change holds it.
 */
async function readSlot(
  kv: Deno.Kv,
  url: string,
  listAll: () => Promise<Destination[]>,
): Promise<UrlSlot> {
  const entry = await kv.get<unknown>(destinationUrlKey(await hashOf(url)));
  const { value, versionstamp } = entry;
  if (Array.isArray(value) && value.every((id) => typeof id === "string")) {
    return { key: entry.key, versionstamp, ids: value };
  }
  // Absent, or edited by hand into junk (checked as read all the same): the destinations stored at the URL.
  const earlier = (await listAll()).filter((d) => d.url === url && !d.pinned).map((d) => d.id);
  return { key: entry.key, versionstamp, ids: earlier };
}

/** The hook that both take (`null`: every hook), or `undefined` when they share none. */
function sharedHook(a: string[] | undefined, b: string[] | undefined): string | null | undefined {
  if (a === undefined) return b === undefined ? null : b[0];
  if (b === undefined) return a[0];
  const set = new Set(b);
  return a.find((id) => set.has(id));
}

/**
 * The destination of `slot` (other than `exceptId`) still at `url` that
 * takes a hook of `hookIds` (absent: every hook), or `null` when none does.
 */
async function clashIn(
  kv: Deno.Kv,
  slot: UrlSlot,
  url: string,
  hookIds: string[] | undefined,
  exceptId?: string,
): Promise<UrlClash | null> {
  const ids = slot.ids.filter((id) => id !== exceptId);
  for (let i = 0; i < ids.length; i += 10) {
    const found = await kv.getMany<Destination[]>(ids.slice(i, i + 10).map(destinationKey));
    for (const { value } of found) {
      if (value === null || value.url !== url || value.pinned) continue; // removed, or moved before this index
      const hook = sharedHook(hookIds, value.hookIds);
      if (hook !== undefined) return { destination: value, hook };
    }
  }
  return null;
}

/** The refusal of a change that would give `url` a hook's postbacks twice. */
function clashMessage(action: string, url: string, clash: UrlClash): string {
  const what = clash.hook === null ? "every hook's postbacks" : `the postbacks of hook '${clash.hook}'`;
  return `Cannot ${action}: ${url} already receives ${what} through destination ${clash.destination.id}; ` +
    "remove that one, or change its hooks, first";
}

/** Adds to `atomic` the check of `slot` and its new ids (the entry deleted when none is left). */
function writeSlot(atomic: Deno.AtomicOperation, slot: UrlSlot, ids: string[]): void {
  atomic.check({ key: slot.key, versionstamp: slot.versionstamp });
  if (ids.length === 0) atomic.delete(slot.key);
  else atomic.set(slot.key, [...new Set(ids)]);
}

/**
 * Adds to `atomic` what writing `record` over `was` (`null`: a new one)
 * changes in the index: nothing for a pinned one or when its URL and hooks
 * stay; else its URL's entry, checked, with its id (and, moved, its old
 * URL's without). With `unique`, throws a `TypeError` when another
 * destination at the URL takes one of its hooks.
 */
export async function indexWrite(
  kv: Deno.Kv,
  atomic: Deno.AtomicOperation,
  record: Destination,
  was: Destination | null,
  unique: boolean,
  listAll: () => Promise<Destination[]>,
): Promise<void> {
  if (record.pinned) return;
  if (was !== null && was.url === record.url && JSON.stringify(was.hookIds) === JSON.stringify(record.hookIds)) return;
  const slot = await readSlot(kv, record.url, listAll);
  const clash = unique ? await clashIn(kv, slot, record.url, record.hookIds, record.id) : null;
  if (clash) throw new TypeError(clashMessage(was ? "update destination" : "add destination", record.url, clash));
  writeSlot(atomic, slot, [...slot.ids, record.id]);
  if (was !== null && was.url !== record.url) {
    const old = await readSlot(kv, was.url, listAll);
    writeSlot(atomic, old, old.ids.filter((id) => id !== record.id));
  }
}

/** Adds to `atomic` the removal of `destination` from its URL's entry (a pinned one has none). */
export async function indexRemove(
  kv: Deno.Kv,
  atomic: Deno.AtomicOperation,
  destination: Destination,
  listAll: () => Promise<Destination[]>,
): Promise<void> {
  if (destination.pinned) return;
  const slot = await readSlot(kv, destination.url, listAll);
  writeSlot(atomic, slot, slot.ids.filter((other) => other !== destination.id));
}
