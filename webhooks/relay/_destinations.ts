// The destination store: records in KV (their secret included), each change
// in one atomic operation that bumps the version counter caches watch.

import { webhookKey } from "../kv/mod.ts";
import { checkHost } from "../net/mod.ts";
import {
  DESTINATION_PREFIX,
  destinationKey,
  DESTINATIONS_VERSION_KEY,
  OUTBOX_BUMP_KEY,
  pinHeldKey,
  ulid,
} from "./_keys.ts";
import { dropRemoved, markRemoved } from "./removal/mod.ts";
import { describe as describeValue, describeUrl, requireString } from "../_util.ts";
import { fitsKey, type ResolvedOptions } from "./_options.ts";
import type { Destination, DestinationInput, DestinationPatch, Destinations, NewDestination } from "./_types.ts";
import { indexRemove, indexWrite } from "./url_index/mod.ts";
import { dropPaused, unpark } from "./paused/mod.ts";
import { commitMending } from "./counters/mod.ts";
import { idOfKey, readable, requireWhole } from "./damaged/mod.ts";

import { checkPatch, patchHolds, type StoredDestination } from "./_destination_types.ts";
export type { StoredDestination };

const ONE = 1n;
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * A new destination secret, as `relay.destinations.add` makes one when it is
 * given none: `whsec_` and 32 random bytes in base64. For a caller that must
 * keep the secret before the destination is stored (to show it once, say),
 * and then passes it as `add({ secret })`.
 *
 * @returns the secret
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newDestinationSecret } from "@community-webhooks/sdk/webhooks";
 * const secret = newDestinationSecret();
 * assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
 * assert.notEqual(newDestinationSecret(), secret);
 * ```
 */
export function newDestinationSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

function checkSecret(secret: unknown, action: string): string {
  if (typeof secret !== "string") {
    throw new TypeError(`Cannot ${action}: 'secret' must be a string, got ${typeof secret}`);
  }
  // The value is never shown: it is a secret, however malformed.
  const match = SECRET.exec(secret);
  let bytes = 0;
  try {
    bytes = match ? atob(match[1]).length : 0;
  } catch {
    bytes = 0;
  }
  if (!match || bytes < 24 || bytes > 64 || match[1].length % 4 !== 0) {
    throw new TypeError(`Cannot ${action}: 'secret' must be 'whsec_' followed by 24 to 64 bytes in base64`);
  }
  return secret;
}

/** The longest destination URL (its normalised form): one far longer failed in KV as "Value too large". */
const MAX_URL = 8_192;

async function checkUrl(url: unknown, action: string, options: ResolvedOptions): Promise<string> {
  const length = typeof url === "string" ? Math.max(url.length, URL.parse(url)?.href.length ?? 0) : 0;
  if (length > MAX_URL) {
    throw new TypeError(`Cannot ${action}: 'url' must be at most ${MAX_URL} characters, got ${length}`);
  }
  // deno-lint-ignore no-control-regex
  const plain = typeof url === "string" && /^https?:\/\/[^/]/i.test(url) && !/[\u0000-\u0020\u007f-\u009f\\]/.test(url);
  const parsed = plain ? URL.parse(url as string) : null;
  if (parsed === null || parsed.hostname === "") {
    throw new TypeError(`Cannot ${action}: 'url' must be an absolute http(s) URL, got ${describeUrl(url)}`);
  }
  // A password in the URL would show wherever the destination does (lists, pages, listen's banner); the URL is
  // not echoed here for the same reason. The signature is what tells the app the request is the relay's.
  if (parsed.username !== "" || parsed.password !== "") {
    throw new TypeError(
      `Cannot ${action}: 'url' must not carry a user name or password (${parsed.host} was given with them); ` +
        "the app verifies the webhook-signature header instead",
    );
  }
  if (!options.allowPrivateNetwork) {
    const { refused } = await checkHost(parsed);
    if (refused) {
      throw new TypeError(`Cannot ${action}: 'url' is refused: ${refused}; allowPrivateNetwork allows it`);
    }
  }
  // A fragment is never sent: `/hooks#a` and `/hooks#b` are one app, which `unique` must see as one URL.
  parsed.hash = "";
  return parsed.href;
}

async function checkHookIds(kv: Deno.Kv, hookIds: unknown, action: string): Promise<string[]> {
  if (!Array.isArray(hookIds) || hookIds.length === 0 || hookIds.length > 1000) {
    throw new TypeError(
      `Cannot ${action}: 'hookIds' must be a non-empty array of hook ids (at most 1000), got ${describeValue(hookIds)}`,
    );
  }
  const bad = hookIds.findIndex((id) => typeof id !== "string" || id === ""); // a hole or `undefined` counts
  if (bad >= 0) {
    throw new TypeError(`Cannot ${action}: 'hookIds' must hold non-empty strings, got ${describeValue(hookIds[bad])}`);
  }
  const ids = [...new Set(hookIds as string[])];
  const long = ids.find((id) => !fitsKey(id)); // names no stored hook
  if (long !== undefined) throw new TypeError(`Cannot ${action}: unknown hook id ${describeValue(long)}`);
  for (let i = 0; i < ids.length; i += 10) {
    const found = await kv.getMany(ids.slice(i, i + 10).map(webhookKey));
    const missing = found.findIndex((entry) => entry.versionstamp === null);
    if (missing >= 0) {
      throw new TypeError(`Cannot ${action}: unknown hook id ${describeValue(ids[i + missing])}`);
    }
  }
  return ids;
}

/** The public view of a stored destination: without its secret. */
export function publicView(stored: StoredDestination): Destination {
  const { id, url, enabled, pinned, createdAt } = stored;
  const view: Destination = { id, url, enabled, pinned, createdAt };
  if (stored.hookIds) view.hookIds = [...stored.hookIds];
  if (stored.damaged !== undefined) view.damaged = stored.damaged;
  return view;
}

/** Reads every stored destination, oldest first. */
export async function listStored(kv: Deno.Kv): Promise<StoredDestination[]> {
  const out: StoredDestination[] = [];
  for await (const { key, value } of kv.list({ prefix: DESTINATION_PREFIX })) {
    const id = idOfKey(key);
    if (id !== null) out.push(readable(id, value));
  }
  return out;
}

/**
 * The destination store; `changed` is called after each change made here
 * and awaited (the cache of this process reloads), so that once a change
 * resolves, this process's `write` works from the list with it. `listed`
 * answers every stored destination as the KV holds them now (the cache's
 * copy while the version key has not moved): `list` hands out copies.
 */
export function createDestinations(
  kv: Deno.Kv,
  options: ResolvedOptions,
  changed: () => Promise<void>,
  listed: () => Promise<StoredDestination[]>,
): Destinations {
  const listAll = () => listStored(kv);

  /**
   * Writes `record` over `previous` (`null`: a new one) when neither changed meanwhile; an unpinned one's URL
   * index entries are checked and rewritten in the same commit. Resolves `false` when something changed first;
   * throws a `TypeError` when another destination at the URL takes one of its hooks.
   */
  async function put(
    record: StoredDestination,
    previous: Deno.KvEntryMaybe<StoredDestination>,
    unique = false,
  ): Promise<boolean> {
    // Sums first (in every commit that bumps a counter): KV refuses one on a junk counter after applying what came
    // before it, so a commit refused there wrote nothing, and commitMending's second try is the only one.
    const atomic = kv.atomic()
      .check(previous)
      .sum(DESTINATIONS_VERSION_KEY, ONE)
      .set(destinationKey(record.id), record);
    await indexWrite(kv, atomic, record, previous.value, unique, listAll);
    const result = await commitMending(kv, atomic, [DESTINATIONS_VERSION_KEY, OUTBOX_BUMP_KEY]);
    await changed();
    return result.ok;
  }

  async function remove(id: string): Promise<boolean> {
    const current = await kv.get<StoredDestination>(destinationKey(id));
    if (current.versionstamp === null) return false;
    const seen = readable(id, current.value); // a damaged record (even a null) is removed as the list shows it
    const atomic = kv.atomic()
      .check(current)
      .sum(DESTINATIONS_VERSION_KEY, ONE)
      .sum(OUTBOX_BUMP_KEY, ONE)
      .delete(destinationKey(id))
      .delete(pinHeldKey(id));
    markRemoved(atomic, id, seen.pinned);
    if (seen.url !== "") await indexRemove(kv, atomic, seen, listAll); // a damaged one without a URL is in no index
    const result = await commitMending(kv, atomic, [DESTINATIONS_VERSION_KEY, OUTBOX_BUMP_KEY]);
    await changed();
    if (!result.ok) return remove(id);
    await dropRemoved(kv, id, seen.pinned);
    await dropPaused(kv, id);
    return true;
  }

  return {
    async add(input: DestinationInput): Promise<NewDestination> {
      const action = "add destination";
      if (input === null || typeof input !== "object") {
        throw new TypeError(`Cannot ${action}: the argument must be an object, got ${describeValue(input)}`);
      }
      // A misspelt field (`hookId`, `enabled: false`) would otherwise be dropped: forwarding every hook, enabled.
      const unknown = Object.keys(input).find((k) => !["url", "hookIds", "secret", "pinned", "unique"].includes(k));
      if (unknown !== undefined) {
        throw new TypeError(
          `Cannot ${action}: it takes only 'url', 'hookIds', 'secret', 'pinned' and 'unique', got ${
            describeValue(unknown)
          }`,
        );
      }
      for (const flag of ["pinned", "unique"] as const) {
        if (input[flag] !== undefined && typeof input[flag] !== "boolean") {
          throw new TypeError(`Cannot ${action}: '${flag}' must be a boolean, got ${describeValue(input[flag])}`);
        }
      }
      const secret = input.secret === undefined ? newDestinationSecret() : checkSecret(input.secret, action);
      const url = await checkUrl(input.url, action, options);
      const record: StoredDestination = {
        id: ulid(),
        url,
        enabled: true,
        pinned: input.pinned ?? false,
        createdAt: options.now(),
        secret,
      };
      if (input.hookIds !== undefined) record.hookIds = await checkHookIds(kv, input.hookIds, action);
      // A new id has no record: only the URL index entry, changed by another add at once, makes this go round.
      const none: Deno.KvEntryMaybe<StoredDestination> = {
        key: destinationKey(record.id),
        value: null,
        versionstamp: null,
      };
      while (!await put(record, none, input.unique === true));
      return { ...publicView(record), secret };
    },

    async list(): Promise<Destination[]> {
      return (await listed()).map(publicView);
    },

    async get(id: string): Promise<Destination | null> {
      requireString(id, "id", "get destination");
      if (!fitsKey(id)) return null;
      const entry = await kv.get<StoredDestination>(destinationKey(id));
      return entry.versionstamp === null ? null : publicView(readable(id, entry.value));
    },

    async update(id: string, patch: DestinationPatch): Promise<Destination | null> {
      const action = "update destination";
      // A destination passed for its id was answered as one not there: the caller's mistake went unseen.
      requireString(id, "id", action);
      if (patch === null || typeof patch !== "object") {
        throw new TypeError(`Cannot ${action}: 'patch' must be an object, got ${describeValue(patch)}`);
      }
      checkPatch(patch, action);
      const url = patch.url === undefined ? undefined : await checkUrl(patch.url, action, options);
      const hookIds = patch.hookIds === undefined || patch.hookIds === null
        ? patch.hookIds
        : await checkHookIds(kv, patch.hookIds, action);
      if (!fitsKey(id)) return null;
      while (true) {
        const current = await kv.get<StoredDestination>(destinationKey(id));
        if (current.versionstamp === null) return null;
        requireWhole(id, current.value, action); // stored data untouched: a damaged record is refused, not patched
        if (!patchHolds(patch, current.value)) return null; // in this commit (ifEnabled, ifHookIds)
        const next: StoredDestination = { ...current.value };
        if (url !== undefined) next.url = url;
        if (hookIds === null) delete next.hookIds;
        else if (hookIds !== undefined) next.hookIds = hookIds;
        if (patch.enabled !== undefined) next.enabled = patch.enabled;
        if (!await put(next, current, patch.unique === true)) continue;
        // Enabled again: the entries kept while it was disabled are due now.
        if (next.enabled && !current.value.enabled) await unpark(kv, id, options.now);
        return publicView(next);
      }
    },

    async remove(id: string): Promise<boolean> {
      requireString(id, "id", "remove destination");
      if (!fitsKey(id)) return false;
      return await remove(id);
    },
  };
}
