/**
 * Filtering and paging the delivery log: newest first, by hook, status
 * (accepted or rejected), verb, and a search of the summary and the payload
 * text, in pages whose cursor is a sequence number. A page reads at most
 * {@linkcode MAX_SCANNED} entries, so a rare match costs a bounded time; the
 * cursor then lets the reader go on.
 *
 * @module
 */

import { type AttemptInfo, type Delivery, type DetailsAt, detailsAtOf, seqOfId } from "./_delivery_item.ts";
import { bodyOf, deliveryOf, rowOf } from "./_delivery_layout.ts";
import { LogScan } from "./_log_scan.ts";
import type { DeliveryView } from "./_view.ts";
import { attemptInfoOf, detailsAt } from "./_attempt_details.ts";
import { deliveryKey, deliveryViewKey } from "./_keys.ts";

/** Entries one page reads at most. */
export const MAX_SCANNED = 2_000;
/** Payloads one page's text search reads at most (each up to 96 KB): the rest is for the next page. */
export const MAX_BODIES_READ = 200;

/** What to show. */
export interface DeliveryFilter {
  /** Only this webhook record's. */
  hookId?: string;
  /**
   * Only accepted deliveries, only rejected attempts (a duplicate counts as
   * rejected: it is logged with its reason), or only those answered with
   * this HTTP status (401, 413, ...).
   */
  status?: "accepted" | "rejected" | number;
  /** Only verbs that start with this (e.g. `jive:created`, or `jive:c`); case-insensitive. */
  verb?: string;
  /** Only this community's (by tenant id). */
  tenantId?: string;
  /** Only entries received at or after this time (ms since the epoch). */
  from?: number;
  /** Only entries received before this time (ms since the epoch). */
  to?: number;
  /** Text to find in the summary, the reason or the payload (case-insensitive). */
  q?: string;
  /** Only entries before this sequence number (the cursor of the next page, older). */
  before?: number;
  /** Only entries after this sequence number (the cursor of the previous page, newer). */
  after?: number;
  /** Entries per page; default 50. */
  limit?: number;
}

/**
 * One page, newest first, with the cursors of the pages beside it: `before`
 * of the next (older) one and `after` of the previous (newer) one, each when
 * there may be more that way.
 */
export interface DeliveryPage {
  values: DeliveryView[];
  before?: number;
  after?: number;
}

function summaryMatches(view: DeliveryView, filter: DeliveryFilter): boolean {
  const accepted = view.status === 200 && !view.reason; // a duplicate is answered 200 but logged with its reason
  if (filter.status === "accepted" && !accepted) return false;
  if (filter.status === "rejected" && accepted) return false;
  if (typeof filter.status === "number" && view.status !== filter.status) return false;
  if (filter.verb && !view.verb.toLowerCase().startsWith(filter.verb.toLowerCase())) return false;
  if (filter.tenantId && view.tenantId !== filter.tenantId) return false;
  if (filter.to !== undefined && Date.parse(view.receivedAt) >= filter.to) return false;
  if (filter.from !== undefined && Date.parse(view.receivedAt) < filter.from) return false;
  return true;
}

function textOf(view: DeliveryView): string {
  return [view.id, view.hookId, view.verb, view.title, view.webhook, view.reason ?? "", String(view.status)]
    .join("\n").toLowerCase();
}

/** A page of the log that matches `filter`: the newest, or the one before `before`, or the one after `after`. */
export async function queryLog(kv: Deno.Kv, filter: DeliveryFilter): Promise<DeliveryPage> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const q = filter.q?.trim().toLowerCase() ?? "";
  // Newer pages read forward from their cursor; the others backward from theirs (or the end).
  const forward = filter.after !== undefined;
  const scan = new LogScan(kv, {
    hookId: filter.hookId,
    ...(forward ? { after: filter.after } : filter.before !== undefined ? { before: filter.before } : {}),
    reverse: !forward,
    limit: MAX_SCANNED,
  });
  const values: DeliveryView[] = [];
  let chunk: DeliveryView[] = [];
  let bodiesRead = 0;
  /** Payloads read with their summaries (kept in the row by the receiver's path). */
  const inline = new Map<DeliveryView, string>();
  const flush = async () => {
    const pending = chunk.filter((v) => summaryMatches(v, filter));
    chunk = [];
    if (!q) return void values.push(...pending);
    // The summary first; the payload only of entries whose summary does not match.
    const found = new Set<string>();
    const unsure: DeliveryView[] = [];
    for (const v of pending) {
      if (textOf(v).includes(q)) continue;
      const payload = inline.get(v);
      if (payload === undefined) unsure.push(v);
      else if (payload.toLowerCase().includes(q)) found.add(v.id);
    }
    // A payload is in its own entry, or (short, stored by the receiver) in its row. The log's rows were read
    // already; a hook's copies hold no payload, so there the row is read beside the body entry.
    const keysOf = filter.hookId
      ? (v: DeliveryView) => [deliveryKey(v.id), deliveryViewKey(v.seq)]
      : (v: DeliveryView) => [deliveryKey(v.id)];
    const per = filter.hookId ? 2 : 1;
    for (let i = 0; i < unsure.length; i += 10 / per) {
      const views = unsure.slice(i, i + 10 / per);
      const entries = await kv.getMany<unknown[]>(views.flatMap(keysOf));
      bodiesRead += views.length;
      for (const [k, view] of views.entries()) {
        const row = per === 2 ? rowOf(entries[2 * k + 1].value, view.seq) : null;
        const payload = row?.view.id === view.id && row.payload !== null
          ? row.payload
          : bodyOf(entries[per * k].value)?.payload;
        if (payload?.toLowerCase().includes(q)) found.add(view.id);
      }
    }
    values.push(...pending.filter((v) => textOf(v).includes(q) || found.has(v.id)));
  };
  for await (const { view, payload } of scan) {
    if (payload !== null && q) inline.set(view, payload);
    // The log runs in commit order, which is arrival order within a second or
    // so: past the start (or, forward, the end) of the range, the rest is out of it too.
    const at = Date.parse(view.receivedAt);
    if (!forward && filter.from !== undefined && at < filter.from - 2_000) break;
    if (forward && filter.to !== undefined && at >= filter.to + 2_000) break;
    chunk.push(view);
    if (chunk.length === 100) await flush();
    if (values.length > limit || bodiesRead >= MAX_BODIES_READ) break;
  }
  await flush();
  // Where the scan stopped: the last entry it read (of another hook, too, in the log's newest rows).
  const last = scan.position;
  const capped = scan.capped || bodiesRead >= MAX_BODIES_READ;
  if (forward) {
    // Oldest first here: the page is the `limit` just after the cursor, shown newest first.
    const kept = values.slice(0, limit).reverse();
    const newer = values.length > limit || capped;
    const newerCursor = kept.length ? kept[0].seq : last;
    return {
      values: kept,
      before: kept.length ? kept[kept.length - 1].seq : filter.after! + 1,
      ...(newer && newerCursor !== undefined ? { after: newerCursor } : {}),
    };
  }
  const newer = filter.before !== undefined ? { after: values.length ? values[0].seq : filter.before - 1 } : {};
  if (values.length > limit) {
    const kept = values.slice(0, limit);
    return { values: kept, before: kept[kept.length - 1].seq, ...newer };
  }
  return { values, ...(capped && last !== undefined ? { before: last } : {}), ...newer };
}

/** Deliveries of the last hours, per hour, accepted against rejected. */
export interface DeliveryStats {
  /** The webhook record counted, or none for all. */
  hookId?: string;
  /** The newest entry, if any. */
  last: DeliveryView | null;
  /** Accepted in the window. */
  accepted: number;
  /** Rejected in the window. */
  rejected: number;
  /** One bucket per hour, oldest first, ending with the current hour. */
  hours: { start: number; accepted: number; rejected: number }[];
  /** Whether the window held more than {@linkcode MAX_SCANNED} entries (the counts stop there). */
  capped: boolean;
  /**
   * Our time to answer accepted postbacks in the window (ms), median and
   * 99th percentile, over the newest {@linkcode MAX_TIMED} of them whose
   * request was recorded; absent when none was.
   */
  handling?: { p50: number; p99: number; count: number };
}

/** Accepted postbacks whose handling time the stats read at most. */
export const MAX_TIMED = 200;

/** The value at quantile `q` of sorted `values` (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

async function handlingOf(
  kv: Deno.Kv,
  all: DetailsAt[],
  pending: (at: DetailsAt) => AttemptInfo | undefined,
): Promise<DeliveryStats["handling"]> {
  const times: number[] = [];
  // The newest wait in memory for their batch (a moment): read there, or "2 accepted" stood beside "of 1 postback".
  const at = all.filter((a) => {
    const info = pending(a);
    if (typeof info?.durationMs === "number") times.push(info.durationMs);
    return info === undefined;
  });
  const keys = at.flatMap((a) => "key" in a ? [a.key] : []);
  for (let i = 0; i < keys.length; i += 10) {
    const found = await kv.getMany<unknown[]>(keys.slice(i, i + 10));
    for (const entry of found) {
      const info = attemptInfoOf(entry.value);
      if (typeof info?.durationMs === "number") times.push(info.durationMs);
    }
  }
  const numbered = await detailsAt(kv, at.flatMap((a) => "first" in a ? [a.first] : []));
  for (const info of numbered.values()) if (typeof info.durationMs === "number") times.push(info.durationMs);
  if (times.length === 0) return undefined;
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), count: times.length };
}

/**
 * Counts the log's entries (of one hook, or all) over the last `hours` hours; `pending` gives the request details that
 * still wait in this process's memory for their batch.
 */
export async function statsOf(
  kv: Deno.Kv,
  hookId: string | undefined,
  hours = 24,
  now = Date.now(),
  pending: (at: DetailsAt) => AttemptInfo | undefined = () => undefined,
): Promise<DeliveryStats> {
  const HOUR = 3_600_000;
  const end = Math.floor(now / HOUR) * HOUR + HOUR;
  const from = end - hours * HOUR;
  const buckets = Array.from({ length: hours }, (_, i) => ({ start: from + i * HOUR, accepted: 0, rejected: 0 }));
  const stats: DeliveryStats = {
    ...(hookId ? { hookId } : {}),
    last: null,
    accepted: 0,
    rejected: 0,
    hours: buckets,
    capped: false,
  };
  /** The request details of accepted postbacks, by postback id (its items share them). */
  const timed = new Map<string, DetailsAt>();
  const scan = new LogScan(kv, { hookId, reverse: true, limit: MAX_SCANNED });
  for await (const { view } of scan) {
    stats.last ??= view;
    const at = Date.parse(view.receivedAt);
    if (at < from) break;
    const bucket = buckets[Math.min(hours - 1, Math.floor((at - from) / HOUR))];
    if (view.status === 200 && !view.reason) {
      bucket.accepted++;
      stats.accepted++;
      const at = detailsAtOf(view);
      if (at && view.postbackId && timed.size < MAX_TIMED) timed.set(view.postbackId, at);
    } else {
      bucket.rejected++;
      stats.rejected++;
    }
  }
  stats.capped = scan.capped;
  const handling = await handlingOf(kv, [...timed.values()], pending);
  if (handling) stats.handling = handling;
  return stats;
}

/** One delivery with its payload, or `null` (see `DeliveryStore.get`). */
export async function getDelivery(kv: Deno.Kv, id: string): Promise<Delivery | null> {
  if (id.length > 200) return null; // ids are short; a longer one (from a URL) names none
  const seq = seqOfId(id);
  if (seq === null) {
    const body = bodyOf((await kv.get(deliveryKey(id))).value);
    return body && "id" in body ? body : null;
  }
  // Stored by the receiver's write: the payload, and the summary at its number.
  const [body, entry] = await kv.getMany<[unknown, unknown]>([deliveryKey(id), deliveryViewKey(seq)]);
  const row = rowOf(entry.value, seq);
  // A short payload is kept in its summary's entry; a longer one (or an earlier version's) in its own.
  const stored = row?.payload != null ? { payload: row.payload, truncated: false } : bodyOf(body.value);
  // The entry at that number must be this delivery's (an id naming another postback's number finds nothing).
  if (row && row.view.id !== id) return null;
  return stored ? deliveryOf(stored, row?.view ?? null) : null;
}
