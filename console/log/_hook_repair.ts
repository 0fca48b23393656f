/**
 * Putting back in its hook's packs a row the hook index passed before it
 * was there: a pass packs the rows below the settle window, and a commit
 * that lands later than that after its number was taken (a remote commit
 * stalled, a KV file locked through several lock retries) may find the mark
 * past its number, moved by a pass that could not see it. Its writer knows
 * (its number is older than the window allows when the commit is known
 * stored) and, once the mark is past it, makes sure the row is in a pack:
 * in the pack whose numbers span it, rewritten in order, or in a pack of its
 * own, each checked by versionstamp. The packs below a mark change no more
 * (passes pack above it), so what it reads there is final.
 *
 * @module
 */

import { hookPackKey, hookPackPrefix } from "./_keys.ts";
import { type Line, packViews, setPack } from "./_hook_pack.ts";
import { retryLocked } from "../lib/kv_retry.ts";

/** Tries at a pack another process changed meanwhile (a second repair, a trim). */
const TRIES = 5;

/**
 * Makes sure `line`, a row numbered at or below the hook index's mark, is
 * in its hook's packs; `maxAgeMs` sets the pack's expiry as a pass does.
 */
export async function repairPack(kv: Deno.Kv, line: Line, maxAgeMs: number): Promise<void> {
  if (!line.hookId) return; // a row of no hook is in no pack
  const prefix = hookPackPrefix(line.hookId);
  for (let tries = 0; tries < TRIES; tries++) {
    // The first pack whose last number is at or past the row's: the one that spans it, if any.
    let pack: Deno.KvEntry<unknown> | null = null;
    for await (const entry of kv.list({ prefix, start: hookPackKey(line.hookId, line.seq) }, { limit: 1 })) {
      pack = entry;
    }
    const views = pack ? packViews(pack.value) : [];
    if (views.some((view) => view.seq === line.seq)) return;
    const spans = pack !== null && views.length > 0 && views[0].seq < line.seq;
    const op = kv.atomic();
    if (spans) {
      const lines = views.map((view) => ({ seq: view.seq, json: JSON.stringify(view) }));
      lines.push({ seq: line.seq, json: line.json });
      lines.sort((p, q) => p.seq - q.seq);
      const newest = Math.max(line.at, ...views.map((view) => Date.parse(view.receivedAt) || 0));
      setPack(op.check(pack!), pack!.key, lines.map((l) => l.json), maxAgeMs, newest);
    } else {
      const key = hookPackKey(line.hookId, line.seq);
      setPack(op.check({ key, versionstamp: null }), key, [line.json], maxAgeMs, line.at);
    }
    if ((await retryLocked(() => op.commit())).ok) return;
  }
}
