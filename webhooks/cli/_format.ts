// How the command line shows things: aligned tables for people, and the
// public form of a community (its secrets replaced by whether they are set)
// for tables and JSON alike.

import type { Community, SecretRotation, Webhook } from "../types.ts";
import { type CommunityEntry, hookDamage, type HookEntry, isCellText } from "../store/mod.ts";
import { shownHook, shownUrl } from "./_shown.ts";

/** A community as the command line shows it: no secret, only whether each is set (its URL as `shownUrl` has it). */
export interface PublicCommunity {
  name: string;
  tenantId: string;
  baseUrl: string | null;
  clientId: string | null;
  hasClientSecret: boolean;
  hasAccessToken: boolean;
  hasRefreshToken: boolean;
  renewedAt: string | null;
}

/** The public form of a community. */
export function publicCommunity(c: Community): PublicCommunity {
  return {
    name: c.name,
    tenantId: c.tenantId,
    baseUrl: typeof c.baseUrl === "string" ? shownUrl(c.baseUrl) : null,
    clientId: typeof c.clientId === "string" ? c.clientId : null,
    hasClientSecret: typeof c.clientSecret === "string" && c.clientSecret !== "",
    hasAccessToken: typeof c.oauth?.access_token === "string" && c.oauth.access_token !== "",
    hasRefreshToken: typeof c.oauth?.refresh_token === "string" && c.oauth.refresh_token !== "",
    renewedAt: typeof c.renewedAt === "string" ? c.renewedAt : null,
  };
}

const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * `text` with its control characters written as escapes (`\n`, `\u001b`):
 * what the command line prints of stored data (a name, a platform's
 * callback URL) can neither move the terminal's cursor, retitle it or
 * colour it (ESC sequences), forge a row of a table (a line break), nor
 * show its text in another order than stored (bidirectional controls,
 * U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C).
 */
export function printable(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g,
    (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A name or id in a message, in quotes: `'Acme'`, its control characters as {@linkcode printable} writes them. */
export function quoted(text: string): string {
  return `'${printable(text)}'`;
}

/** Cells as text whatever a record holds: one written by another tool must not stop the listing. */
export function tableCells(rows: unknown[][]): string[][] {
  return rows.map((row) => row.map((cell) => cell === undefined || cell === null ? "" : printable(String(cell))));
}

/** Each column's width: its widest cell of `cells`, or its head. */
export function tableWidths(head: string[], cells: string[][]): number[] {
  return head.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
}

/** One line of a table: each cell padded to its column's width (a longer one is not cut), two spaces between. */
export function tableLine(row: string[], widths: number[]): string {
  return row.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
}

/** The head of a table and the rule under it. */
export function tableHead(head: string[], widths: number[]): string {
  return [tableLine(head, widths), tableLine(widths.map((w) => "-".repeat(w)), widths)].join("\n");
}

/** Columns padded to their widest cell, a rule under the head. */
export function table(head: string[], rows: unknown[][]): string {
  const cells = tableCells(rows);
  const widths = tableWidths(head, cells);
  return [tableHead(head, widths), ...cells.map((row) => tableLine(row, widths))].join("\n");
}

/** The head of a table of communities. */
export const COMMUNITY_HEAD = ["NAME", "TENANT", "BASE URL", "CLIENT ID", "SECRET", "TOKENS"];

function publicRow(c: PublicCommunity): unknown[] {
  return [
    c.name,
    c.tenantId,
    c.baseUrl ?? "",
    c.clientId ?? "",
    c.hasClientSecret ? "set" : "none",
    c.hasAccessToken ? (c.hasRefreshToken ? "access + refresh" : "access") : "none",
  ];
}

/**
 * A stored community entry as `communities list` shows it: a whole one as {@linkcode publicCommunity}; a damaged one
 * under the tenant id of its key, its fields where they are whole (`name` `null` when it is not a string), and
 * `damaged` saying what is wrong, so it shows as damaged, not as a blank or `[object Object]`.
 */
export function shownCommunityEntry(entry: CommunityEntry): PublicCommunity & { damaged?: string } {
  if (entry.damaged === null) return publicCommunity(entry.stored as Community);
  const record = (typeof entry.stored === "object" && entry.stored !== null ? entry.stored : {}) as Community;
  const name = typeof record.name === "string" ? record.name : null;
  const oauth = typeof record.oauth === "object" ? record.oauth : undefined;
  return {
    ...publicCommunity({ ...record, tenantId: entry.tenantId, oauth }),
    name: name as string,
    damaged: entry.damaged,
  };
}

/** The row of a stored community entry in a table: a damaged one says what is wrong where its base URL goes. */
export function communityEntryRow(entry: CommunityEntry): unknown[] {
  const shown = shownCommunityEntry(entry);
  const row = publicRow(shown);
  if (shown.damaged !== undefined) row[2] = `damaged record: ${shown.damaged}`; // not a blank: what is wrong with it
  return row;
}

/** One community, field by field; with the rotation of its secret while the previous one is accepted. */
export function communityDetails(c: Community, rotation: SecretRotation | null = null): string {
  const p = publicCommunity(c);
  return table(["FIELD", "VALUE"], [
    ["name", p.name],
    ["tenant", p.tenantId],
    ["base URL", p.baseUrl ?? ""],
    ["client id", p.clientId ?? ""],
    ["client secret", p.hasClientSecret ? "set" : "none"],
    ...(rotation
      ? [["secret rotated", `${rotation.rotatedAt}; the previous one is accepted until ${rotation.validUntil}`]]
      : []),
    ["access token", p.hasAccessToken ? "set" : "none"],
    ["refresh token", p.hasRefreshToken ? "set" : "none"],
    ["tokens renewed", p.renewedAt ?? ""],
  ]);
}

/** The head of a table of webhook records. */
export const HOOK_HEAD = ["ID", "TENANT", "EVENTS", "CALLBACK", "URL"];

/**
 * The row of a webhook record in a table, its URLs as `shownUrl` has them; a record whose fields are of the wrong type
 * says `damaged record: ...` and what is wrong in its URL column, its cells of the wrong type blank.
 */
export function hookRow(hook: Webhook): unknown[] {
  const damaged = hookDamage(hook);
  const h = shownHook(hook) as Partial<Webhook>;
  const entity = typeof h?.entity === "object" && h.entity !== null ? h.entity : {};
  const text = (value: unknown) => isCellText(value) ? String(value) : "";
  const events = Array.isArray(entity.events) ? entity.events.filter(isCellText) : [];
  return [
    text(h?.id),
    text(h?.tenantId),
    events.join(","),
    text(entity.callback),
    damaged === null ? text(entity.resources?.self?.ref) : `damaged record: ${damaged}`, // not a blank: what is wrong
  ];
}

/** A stored record entry as `hooks list --json` shows it: a whole one as `shownHook`; a damaged one `{ id, damaged }`. */
export function shownHookEntry(entry: HookEntry): unknown {
  return entry.damaged === null ? shownHook(entry.stored as Webhook) : { id: entry.id, damaged: entry.damaged };
}

/** The row of a stored record entry: a damaged one under the id of its key, what is wrong in its URL column. */
export function hookEntryRow(entry: HookEntry): unknown[] {
  return entry.damaged === null
    ? hookRow(entry.stored as Webhook)
    : [entry.id, "", "", "", `damaged record: ${entry.damaged}`];
}

/** The rows of webhook records, their URLs as `shownUrl` has them. */
export function hookTable(hooks: Webhook[]): string {
  return hooks.length === 0 ? "No webhooks." : table(HOOK_HEAD, hooks.map(hookRow));
}

/**
 * `JSON.stringify(value, null, indent)` that never throws on what a record edited by hand may hold: a BigInt or a
 * `Deno.KvU64` is written as its decimal digits (a string), and an object inside itself as `"[circular]"`.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(plain(value, new Set()), null, indent);
}

function plain(value: unknown, above: Set<object>): unknown {
  if (typeof value === "bigint") return String(value);
  if (value instanceof Deno.KvU64) return String(value.value);
  if (typeof value !== "object" || value === null) return value;
  if (above.has(value)) return "[circular]";
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return value; // a Date, say
  above.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => plain(v, above));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, above)]));
  } finally {
    above.delete(value);
  }
}

/** The items of a comma-separated flag value, trimmed, each once, in their order (`"a, b,,a"` is `["a", "b"]`). */
export function commaList(value: string): string[] {
  return [...new Set(value.split(",").map((item) => item.trim()).filter(Boolean))];
}
