/**
 * The types of a relay's destinations: what `relay.destinations` keeps,
 * takes and gives back.
 *
 * @module
 */

import { describe as describeValue } from "../_util.ts";

/**
 * A destination that postbacks are forwarded to. Its secret is only in what
 * `add` returns ({@linkcode NewDestination}).
 *
 * @example Usage
 * ```ts
 * import type { Destination } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const destination: Destination = {
 *   id: "01J0000000000000000000000", url: "https://app.example/hooks", enabled: true, pinned: false, createdAt: 0,
 * };
 * assert.equal(destination.hookIds, undefined); // every hook
 * ```
 */
export interface Destination {
  /** Its id (a ULID). */
  id: string;
  /** Where postbacks are POSTed. */
  url: string;
  /** The hooks whose postbacks it gets; absent: every hook. */
  hookIds?: string[];
  /**
   * Whether postbacks are forwarded to it (a `410 Gone` answer sets it to `false`). While `false` it is paused:
   * it gets no new entries, and those waiting are kept untried and sent once it is `true` again.
   */
  enabled: boolean;
  /** Delivered only by workers started for it (`run({ destinations: [id] })`). */
  pinned: boolean;
  /** When it was added (the relay's `now()`, ms). */
  createdAt: number;
  /**
   * Present only when its stored record is damaged (edited by hand, or by a buggy older tool, into something `add`
   * and `update` never write): what is wrong, field by field (`'url' is missing; 'secret' is missing`), no value
   * quoted. Such a destination is listed under the id of its key, disabled; `update` refuses it and `remove` clears
   * it.
   */
  damaged?: string;
}

/**
 * What `destinations.add` returns: the destination and its signing secret,
 * shown this once.
 *
 * @example Usage
 * ```ts
 * import type { NewDestination } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const added: NewDestination = {
 *   id: "d1", url: "https://app.example/hooks", enabled: true, pinned: false, createdAt: 0,
 *   secret: "whsec_" + btoa("x".repeat(32)),
 * };
 * assert.ok(added.secret.startsWith("whsec_"));
 * ```
 */
export interface NewDestination extends Destination {
  /** `whsec_` and base64: give it to the app that verifies the signatures. */
  secret: string;
}

/**
 * What `destinations.add` takes.
 *
 * @example Usage
 * ```ts
 * import type { DestinationInput } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const input: DestinationInput = { url: "https://app.example/hooks", hookIds: ["h1"] };
 * assert.equal(input.secret, undefined); // generated
 * ```
 */
export interface DestinationInput {
  /** An absolute http(s) URL (at most 8,192 characters); a loopback, private or link-local host only with `allowPrivateNetwork`. */
  url: string;
  /** Existing hook ids; absent: every hook. */
  hookIds?: string[];
  /** `whsec_` and 24 to 64 bytes in base64; generated when absent (32 random bytes). */
  secret?: string;
  /** Delivered only by workers started for it (default `false`). */
  pinned?: boolean;
  /**
   * Refuse the add (a `TypeError` naming the other destination) when an
   * unpinned destination at the same URL already takes one of its hooks, a
   * destination of every hook counting for each: the app would get each
   * postback twice, under two ids and two secrets. Checked in the commit that
   * adds it, so of two such adds at once, in any processes, one is refused.
   * Default `false`: the same URL may be added twice (the console sets it).
   */
  unique?: boolean;
}

/**
 * What `destinations.update` changes.
 *
 * @example Usage
 * ```ts
 * import type { DestinationPatch } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const patch: DestinationPatch = { enabled: false, ifEnabled: true }; // only if it is enabled now
 * assert.equal(patch.url, undefined); // kept
 * const narrowed: DestinationPatch = { hookIds: ["h2"], ifHookIds: ["h1", "h2"] }; // only if those are its hooks now
 * assert.deepEqual(narrowed.hookIds, ["h2"]);
 * ```
 */
export interface DestinationPatch {
  /** A new URL, checked as in `add`. */
  url?: string;
  /** New hook ids; `null` means every hook. */
  hookIds?: string[] | null;
  /** Enable (the entries kept while it was disabled are due at once) or disable (pause: nothing sent, none lost). */
  enabled?: boolean;
  /** Refuse a new URL or hooks that another destination at the URL already takes, as `add`'s `unique`. */
  unique?: boolean;
  /**
   * Change it only if its `enabled` is this when the change is committed; otherwise nothing is written and `update`
   * resolves `null`, as for one not there. Of two `{ enabled: false, ifEnabled: true }` at once, one gets `null`.
   */
  ifEnabled?: boolean;
  /**
   * Change it only if its hooks are these (`null`: every hook) when the change is committed, in any order; otherwise
   * nothing is written and `update` resolves `null`. A list read, changed and written back (a hook taken off) then
   * never puts back a hook that another process took off meanwhile: read again and try again.
   */
  ifHookIds?: string[] | null;
}

/** Refuses a patch of unknown fields, or of flags or an `ifHookIds` of another type. */
export function checkPatch(patch: DestinationPatch, action: string): void {
  const unknown = Object.keys(patch).find((k) => !PATCH_FIELDS.includes(k));
  if (unknown !== undefined) {
    throw new TypeError(
      `Cannot ${action}: only 'url', 'hookIds' and 'enabled' change ('unique', 'ifEnabled' and 'ifHookIds' check), ` +
        `got ${describeValue(unknown)}`,
    );
  }
  for (const flag of ["enabled", "unique", "ifEnabled"] as const) {
    if (patch[flag] !== undefined && typeof patch[flag] !== "boolean") {
      throw new TypeError(`Cannot ${action}: '${flag}' must be a boolean, got ${describeValue(patch[flag])}`);
    }
  }
  const expected = patch.ifHookIds;
  if (expected !== undefined && expected !== null && !(Array.isArray(expected) && expected.every(isString))) {
    throw new TypeError(
      `Cannot ${action}: 'ifHookIds' must be a list of hook ids or null, got ${describeValue(expected)}`,
    );
  }
}

/** Whether the stored destination is as the patch's `ifEnabled` and `ifHookIds` ask. */
export function patchHolds(patch: DestinationPatch, stored: { enabled: boolean; hookIds?: string[] }): boolean {
  if (patch.ifEnabled !== undefined && stored.enabled !== patch.ifEnabled) return false;
  if (patch.ifHookIds === undefined) return true;
  if (patch.ifHookIds === null || stored.hookIds === undefined) return patch.ifHookIds === null && !stored.hookIds;
  const want = new Set(patch.ifHookIds);
  return want.size === new Set(stored.hookIds).size && stored.hookIds.every((id) => want.has(id));
}

const PATCH_FIELDS = ["url", "hookIds", "enabled", "unique", "ifEnabled", "ifHookIds"];
const isString = (v: unknown): v is string => typeof v === "string";

/**
 * The destinations of a relay, kept in KV.
 *
 * @example Usage
 * ```ts
 * import { createRelay } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const relay = createRelay(kv);
 * const added = await relay.destinations.add({ url: "https://203.0.113.9/hooks" }).catch((e) => e);
 * assert.ok(added instanceof TypeError); // a documentation address: not public
 * await relay.close();
 * kv.close();
 * ```
 */
export interface Destinations {
  /**
   * Adds one; resolves with it and its secret (shown this once). A field it does not take is a `TypeError`; so,
   * with `unique`, is a URL that an unpinned destination already forwards one of its hooks to (every hook counting
   * as each), checked in the commit that adds it, so of two such adds at once in any processes one is refused.
   * Pinned destinations (`listen`'s, whose URL is on the machine of their worker) are never compared.
   */
  add(input: DestinationInput): Promise<NewDestination>;
  /**
   * Every destination, oldest first, with every change committed before the call (here or in another process).
   * While no destination changed since this process last read them, it is one read of a version key.
   */
  list(): Promise<Destination[]>;
  /** One destination, or `null`. An id that is not a non-empty string (a destination passed for its id) is a `TypeError`. */
  get(id: string): Promise<Destination | null>;
  /**
   * Changes `url`, `hookIds` or `enabled`; resolves with the result, or `null` when there is no such destination.
   * A new URL or hooks that would give a URL one hook's postbacks twice are a `TypeError`, as in `add`; so is an id
   * that is not a non-empty string.
   */
  update(id: string, patch: DestinationPatch): Promise<Destination | null>;
  /**
   * Removes it, the entries waiting only for it and its dead letters; resolves `true` when it existed. An id that is not a non-empty
   * string is a `TypeError` (not `false`, which would hide the mistake).
   */
  remove(id: string): Promise<boolean>;
}

/** A destination as stored: with its secret. */
export interface StoredDestination extends Destination {
  /** Its signing secret (`whsec_...`), never in a public view. */
  secret: string;
}
