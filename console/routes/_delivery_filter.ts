/**
 * The deliveries page's filter: read from the query string (bounded), each
 * value that cannot be read named, and written back as a page's address;
 * the answers and verbs its lists offer.
 *
 * @module
 */

import type { Context } from "hono";
import type { ConsoleEnv } from "../lib/context.ts";
import type { DeliveryFilter } from "../log/mod.ts";

/** The answers the receiver gives, offered by the status filter besides accepted and rejected. */
export const ANSWERS: [number, string][] = [
  [0, "platform could not deliver"],
  [200, "200 duplicate"],
  [400, "400 bad request"],
  [401, "401 signature"],
  [404, "404 unknown hook"],
  [405, "405 method"],
  [409, "409 wrong community"],
  [413, "413 too large"],
  [429, "429 rate limited"],
  [500, "500 error"],
  [503, "503 unavailable"],
];

/** Verbs the platform sends (PLATFORM.md), offered by the verb filter with those seen in the log. */
export const KNOWN_VERBS: string[] = [
  "jive:created",
  "jive:modified",
  "jive:commented",
  "jive:replied",
  "jive:liked",
  "jive:outcome_set",
  "jive:social_group_created",
  "jive:user_account_created",
  "jive:user_membership_added",
  "jive:user_session_login",
  "jive:webhook_created",
];

/**
 * The filter of the deliveries page, from its query string (bounded), what was wrong in it, and the query names
 * (fields) those problems are about, with what was typed in them: the page marks those fields, described by its
 * error, and keeps what was typed.
 */
export function filterOf(
  c: Context<ConsoleEnv>,
): { filter: DeliveryFilter; problems: string[]; faults: Map<string, string> } {
  const problems: string[] = [];
  const faults = new Map<string, string>();
  const fault = (name: string, problem: string) => {
    problems.push(problem);
    faults.set(name, c.req.query(name)?.trim() ?? "");
  };
  const shown = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…`.toWellFormed() : v);
  const text = (name: string, label: string, max: number) => {
    const v = c.req.query(name)?.trim() ?? "";
    if (v.length > max) fault(name, `${label}: longer than ${max} characters`);
    return v && v.length <= max ? v : undefined;
  };
  const statusText = c.req.query("status")?.trim() ?? "";
  let status: DeliveryFilter["status"];
  if (statusText === "accepted" || statusText === "rejected") status = statusText;
  else if (/^(0|[1-5]\d\d)$/.test(statusText)) status = Number(statusText); // 0: a platform-side failure
  else if (statusText) fault("status", `Status: ${shown(statusText)} is not accepted, rejected or an HTTP status`);
  // `after=0` is the log's start: the Newer link of an empty page before every delivery leads there.
  const cursor = (name: string, least: number) => {
    const v = c.req.query(name);
    if (v === undefined || v === "") return undefined;
    const n = Number(v);
    if (Number.isSafeInteger(n) && n >= least) return n;
    problems.push(`Page: ${shown(v)} is not a page of the log`);
    return undefined;
  };
  // Times in UTC, as a datetime-local field sends them ("2026-11-24T10:00").
  const time = (name: string, label: string) => {
    const v = c.req.query(name)?.trim() ?? "";
    if (!v) return undefined;
    const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:?\d\d)?$/.exec(v);
    // Date.parse rolls impossible dates over (2020-02-31 is March 2): each field must be in its range.
    const [year, month, day, hour, minute] = (m?.slice(1, 6) ?? []).map(Number);
    const inRange = m && month >= 1 && month <= 12 && day >= 1 &&
      day <= new Date(Date.UTC(year, month, 0)).getUTCDate() && hour <= 23 && minute <= 59;
    const ms = inRange ? Date.parse(m[8] ? v : `${v}Z`) : NaN;
    if (Number.isFinite(ms)) return ms;
    fault(name, `${label}: ${shown(v)} is not a date and time (write it as 2026-11-24T10:00, in UTC)`);
    return undefined;
  };
  const filter: DeliveryFilter = {
    hookId: text("hook", "Webhook", 200),
    tenantId: text("community", "Community", 200),
    status,
    verb: text("verb", "Verb", 100),
    q: text("q", "Search", 200),
    from: time("from", "From"),
    to: time("to", "To"),
    before: cursor("before", 1),
    after: cursor("after", 0),
  };
  if (filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
    fault("to", "To: it is not after From, so nothing could match");
  }
  return { filter, problems, faults };
}

/**
 * A time as the filter reads it back: UTC, to the minute when it is on one (as a datetime-local field sends it), else
 * to its second or millisecond, so that the page's links and fields filter as the page itself did.
 */
export function utcText(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(":00.000Z") ? iso.slice(0, 16) : iso.endsWith(".000Z") ? iso.slice(0, 19) : iso.slice(0, 23);
}

/** A filter as query parameters (empty ones left out). */
function query(filter: DeliveryFilter): Record<string, string> {
  const out: Record<string, string> = {};
  if (filter.hookId) out.hook = filter.hookId;
  if (filter.status !== undefined) out.status = String(filter.status);
  if (filter.verb) out.verb = filter.verb;
  if (filter.tenantId) out.community = filter.tenantId;
  if (filter.from !== undefined) out.from = utcText(filter.from);
  if (filter.to !== undefined) out.to = utcText(filter.to);
  if (filter.q) out.q = filter.q;
  if (filter.before !== undefined) out.before = String(filter.before);
  if (filter.after !== undefined) out.after = String(filter.after);
  return out;
}

/**
 * The address of the deliveries page for `filter`, at its table: a keyboard user who pages on (Older, Newer, Newest)
 * goes on from the rows by the next Tab, rather than from the top, through the menu and the filters again.
 */
export function pageUrl(filter: DeliveryFilter): string {
  const q = new URLSearchParams(query(filter)).toString();
  return `/deliveries${q ? `?${q}` : ""}#deliveries-table`;
}
