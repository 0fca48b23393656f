// The relay a `relay` command reads and writes through: one on the command's
// KV, closed when the command ends, and what its tables share (a time, an
// entry or destination id checked before any is used).

import { createRelay, type Relay } from "../../relay/mod.ts";
import { quoted } from "../_format.ts";
import type { PagedOutput } from "../_paged.ts";

/** What a `relay` command gets: the command's KV, arguments and flags, and where it prints. */
export interface RelayContext extends PagedOutput {
  /** The KV the command runs on. */
  kv: Deno.Kv;
  args: string[];
  flags: Record<string, string | boolean | undefined>;
}

/** Runs `fn` with a relay on `ctx.kv`; closes it after, whether `fn` throws or not. */
export async function withRelay<T>(ctx: RelayContext, fn: (relay: Relay) => Promise<T>): Promise<T> {
  // No worker is started: these commands read and write the relay's records, they deliver nothing.
  const relay = createRelay(ctx.kv);
  try {
    return await fn(relay);
  } finally {
    await relay.close();
  }
}

/** A time in ms as a table shows it (ISO 8601, UTC); a value written by another tool that is no time, as it is. */
export function shownTime(ms: unknown): string {
  return typeof ms === "number" && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15
    ? new Date(ms).toISOString()
    : String(ms ?? "");
}

/** An entry id: `msg_` and a ULID (Crockford's base32), as the relay makes them. */
const ENTRY_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Each of `ids` that is no entry id, as the message of a usage error; `null` when all are. */
export function badEntryId(ids: string[]): string | null {
  const bad = ids.find((id) => !ENTRY_ID.test(id));
  return bad === undefined
    ? null
    : `${quoted(bad)} is no entry id (msg_ and 26 characters of a ULID, as in relay dead-letters)`;
}

/** A destination id: a ULID (Crockford's base32), as the relay makes them. */
const DESTINATION_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The message of a usage error when `id` is no destination id; `null` when it is one. */
export function badDestinationId(id: string): string | null {
  return DESTINATION_ID.test(id)
    ? null
    : `${quoted(id)} is no destination id (26 characters of a ULID, as in relay destinations)`;
}

/** The failure of a well-formed destination id that names no destination. */
export const unknownDestination = (id: string): Error => new Error(`No destination has the id ${quoted(id)}`);
