/**
 * The hook index's packs (_hook_index.ts): one hook's delivery summaries as
 * JSON lines in one KV entry, keyed by the number of the last; making them
 * from summaries, reading them, and trimming them with the log.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { DeliveryView } from "./_view.ts";
import { hookPackPrefix } from "./_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { isView, summaryOf, utf8 } from "./_delivery_layout.ts";

/** Bytes of one pack at most: KV takes 64 KiB per value. */
const PACK_BYTES = 60_000;
/** Milliseconds of arrivals one pack spans at most (it expires with its newest). */
const PACK_SPAN_MS = 60_000;

const decoder = new TextDecoder();

/** The summaries of a pack, in order. */
export function packViews(value: unknown): DeliveryView[] {
  if (!(value instanceof Uint8Array)) return [];
  const out: DeliveryView[] = [];
  for (const line of decoder.decode(value).split("\n")) {
    try {
      const view: unknown = line ? JSON.parse(line) : null;
      if (isView(view)) out.push(view);
    } catch {
      // a line that does not parse is skipped
    }
  }
  return out;
}

/** One summary to pack: its number, hook, arrival (ms) and JSON. */
export interface Line {
  seq: number;
  hookId: string;
  at: number;
  json: string;
}

/**
 * The line of the summary at number `seq` as read from the log (its row's first line, or the object an earlier
 * writer stored); `null`: junk (hand-edited, a bad write), which no pack takes.
 */
export function lineOf(value: unknown, seq: number): Line | null {
  const summary = summaryOf(value, seq);
  return summary === null ? null : lineOfView(summary.view, summary.json);
}

/** A summary's line as a writer has it. */
export function lineOfView(view: DeliveryView, json: string = JSON.stringify(view)): Line {
  return { seq: view.seq, hookId: view.hookId, at: Date.parse(view.receivedAt) || 0, json };
}

/** One pack being filled. */
export interface Pack {
  hookId: string;
  lines: string[];
  bytes: number;
  oldest: number;
  newest: number;
  last: number;
}

/** How long a pack lives: until its newest summary (arrived at `newest`, ms) is `maxAgeMs` old (a second at least). */
export function packExpiry(maxAgeMs: number, newest: number): number {
  return Math.max(1_000, maxAgeMs - (Date.now() - newest));
}

/**
 * Sets the pack at `key` to `lines` (summaries' JSON, in number order, one
 * per line), living until its newest summary (arrived at `newest`, ms) is
 * `maxAgeMs` old: what a pass writes, and a repair that rewrites one.
 */
export function setPack(
  atomic: Deno.AtomicOperation,
  key: Deno.KvKey,
  lines: string[],
  maxAgeMs: number,
  newest: number,
): Deno.AtomicOperation {
  return atomic.set(key, utf8(lines.join("\n")), { expireIn: packExpiry(maxAgeMs, newest) });
}

/**
 * The lines in packs per hook, within a pack's bytes and span, as many lines
 * as `maxPacks` packs take: `last` is the number of the last line taken
 * (lines numbered `keepAbove` or lower, and those of no hook, are taken and
 * left out), `cut` whether lines were left for another pass.
 */
export function packsOf(
  lines: Line[],
  maxPacks: number,
  keepAbove: number,
): { packs: Pack[]; last: number; cut: boolean } {
  const open = new Map<string, Pack>();
  const out: Pack[] = [];
  let last = 0;
  for (const line of lines) {
    if (line.hookId && line.seq > keepAbove) {
      const bytes = Buffer.byteLength(line.json) + 1;
      let pack = open.get(line.hookId);
      const full = pack && (pack.bytes + bytes > PACK_BYTES || line.at - pack.oldest > PACK_SPAN_MS);
      if (!pack || full) {
        if (out.length + open.size >= maxPacks) return { packs: [...out, ...open.values()], last, cut: true };
        if (pack) out.push(pack);
        pack = { hookId: line.hookId, lines: [], bytes: 0, oldest: line.at, newest: line.at, last: 0 };
        open.set(line.hookId, pack);
      }
      pack.lines.push(line.json);
      pack.bytes += bytes;
      pack.newest = Math.max(pack.newest, line.at);
      pack.last = line.seq;
    }
    last = line.seq;
  }
  return { packs: [...out, ...open.values()], last, cut: false };
}

/**
 * Deletes the hooks' packs whose summaries are all numbered below
 * `keepFrom`. The one that straddles it stays as it is (no rewrite per
 * trim): readers skip its summaries below the log's oldest row.
 */
export async function dropPacksBelow(kv: Deno.Kv, keepFrom: number, hookIds: Iterable<string>): Promise<void> {
  for (const hookId of new Set(hookIds)) {
    if (!hookId) continue;
    const prefix = hookPackPrefix(hookId);
    for (;;) {
      const old: Deno.KvKey[] = [];
      for await (const entry of kv.list({ prefix, end: [...prefix, keepFrom] }, { limit: 200 })) old.push(entry.key);
      if (old.length === 0) break;
      const op = kv.atomic();
      for (const key of old) op.delete(key);
      await retryLocked(() => op.commit());
      if (old.length < 200) break;
    }
  }
}
