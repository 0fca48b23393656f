// A destination record that is not one `add` or `update` writes (a KV edited by hand, or by a buggy older tool):
// what is wrong with it, named field by field and never quoting a value (the secret may be among them), and the
// view `list` and `get` give of it, under the id of its key, so a damaged record shows as damaged, not as a blank.

import type { StoredDestination } from "../_destination_types.ts";
import { kindOf } from "../../_util.ts";

function field(record: Record<string, unknown>, name: string, ok: (v: unknown) => boolean, want: string): string[] {
  const value = record[name];
  if (value === undefined) return [`'${name}' is missing`];
  return ok(value) ? [] : [`'${name}' must be ${want}, got ${kindOf(value)}`];
}

const isString = (v: unknown) => typeof v === "string";
const isBoolean = (v: unknown) => typeof v === "boolean";

/**
 * What is wrong with the record stored at the key of destination `id`, each fault named (`'url' is missing`,
 * `'enabled' must be a boolean, got a string`) and joined by `; `; `null` when it is whole. Only its shape is
 * checked: a malformed URL or secret in the right shape fails each delivery, saying so.
 */
export function damage(id: string, stored: unknown): string | null {
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return `it is ${kindOf(stored)}`;
  const record = stored as Record<string, unknown>;
  const faults = [
    ...(record.id === undefined
      ? ["'id' is missing"]
      : record.id !== id
      ? [`'id' must be the id of its key (${id}), got ${kindOf(record.id)}`]
      : []),
    ...field(record, "url", isString, "a string"),
    ...field(record, "enabled", isBoolean, "a boolean"),
    ...field(record, "pinned", isBoolean, "a boolean"),
    ...field(record, "createdAt", Number.isFinite, "a finite number"),
    ...field(record, "secret", isString, "a string"),
    ...(record.hookIds === undefined ? [] : field(
      record,
      "hookIds",
      (v) => Array.isArray(v) && v.every((h) => typeof h === "string" && h !== ""),
      "an array of hook ids",
    )),
  ];
  return faults.length === 0 ? null : faults.join("; ");
}

/**
 * The record `list`, `get` and the workers see for a damaged one: under `id`, disabled (it takes no new entries:
 * those it has wait, as a disabled destination's do, until it is removed), its URL and flags where they are whole,
 * and `damaged` saying what is wrong. Its secret is empty: nothing is signed with it.
 */
export function damagedRecord(id: string, stored: unknown, damaged: string): StoredDestination {
  const record = (stored !== null && typeof stored === "object" ? stored : {}) as Record<string, unknown>;
  return {
    id,
    url: typeof record.url === "string" ? record.url : "",
    enabled: false,
    pinned: record.pinned === true,
    createdAt: Number.isFinite(record.createdAt) ? record.createdAt as number : 0,
    secret: "",
    damaged,
  };
}

/** The record stored at the key of destination `id` as the relay uses it: as stored when whole, else {@linkcode damagedRecord}. */
export function readable(id: string, stored: unknown): StoredDestination {
  const damaged = damage(id, stored);
  return damaged === null ? stored as StoredDestination : damagedRecord(id, stored, damaged);
}

/**
 * The destination id a key under the destinations' prefix names: its second part when it is a string and the last
 * part; `null` for any other key (`["relay_destination", 42]`, `["relay_destination", id, "x"]`), one no call can
 * name: not listed, so it neither shows under an id nothing reaches nor takes the place of the destination `id`.
 */
export function idOfKey(key: Deno.KvKey): string | null {
  return key.length === 2 && typeof key[1] === "string" ? key[1] : null;
}

/** Throws a `TypeError` naming destination `id` and what is wrong when its stored record is damaged. */
export function requireWhole(id: string, stored: unknown, action: string): void {
  const damaged = damage(id, stored);
  if (damaged !== null) {
    throw new TypeError(`Cannot ${action}: destination ${id}'s stored record is damaged (${damaged}); remove it`);
  }
}
