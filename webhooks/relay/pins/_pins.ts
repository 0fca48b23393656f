// A pinned destination (a developer's `listen`) is marked held by each
// worker started for it, at every housekeeping pass (each minute), and
// removed once no worker held it for PIN_ABANDONED_MS. A mark is a time by
// its holder's clock, and the clocks of machines differ: a worker whose clock
// runs ahead would take a live mark for an old one, and remove a destination
// in use with what waits for it. So a mark must also have stood still (one
// versionstamp) for PIN_QUIET_MS by the remover's own clock, which the marks
// of a live holder, written each minute, never do.

import { retryWhileLocked } from "../../kv/mod.ts";
import { destinationKey, pinHeldKey } from "../_keys.ts";

/** A pinned destination that no worker held for this long is removed. */
export const PIN_ABANDONED_MS = 10 * 60_000;
/** How long a mark must stand still, by the remover's clock, before its holder counts as gone. */
export const PIN_QUIET_MS = 3 * 60_000;

/**
 * When a mark says its destination was last held: its time; never marked, the destination's creation. A mark that is
 * no finite number (edited by hand into junk), or further ahead of this clock than any holder's clock could be, says
 * nothing: it counts from when this relay first saw it, so a killed `listen`'s destination still goes.
 */
function heldAt(mark: unknown, createdAt: number, since: number, now: number): number {
  if (mark === null) return createdAt;
  return typeof mark === "number" && Number.isFinite(mark) && mark <= now + PIN_ABANDONED_MS ? mark : since;
}

/** What a relay knows of the marks of the pinned destinations: shared by its workers. */
export class PinMarks {
  #kv: Deno.Kv;
  #now: () => number;
  /** Each pinned destination's mark as last read: its versionstamp, and when (this relay's clock) it was first seen. */
  #seen = new Map<string, { versionstamp: string | null; since: number }>();

  constructor(kv: Deno.Kv, now: () => number) {
    this.#kv = kv;
    this.#now = now;
  }

  /** Marks the destinations `ids` held now (by a worker started for them), each only while it is stored. */
  async mark(ids: string[]): Promise<void> {
    const now = this.#now();
    for (const id of ids) {
      // Only while the destination is there, checked in the commit: a list a second old may still have one removed
      // elsewhere, whose removal deleted its mark; written back, nothing would ever delete it again.
      await retryWhileLocked(async () => {
        const destination = await this.#kv.get(destinationKey(id));
        if (destination.versionstamp === null) return;
        await this.#kv.atomic().check(destination).set(pinHeldKey(id), now).commit();
      });
    }
  }

  /**
   * The ids among `pinned` (held by no worker of this relay) that no worker held for {@linkcode PIN_ABANDONED_MS}:
   * a mark (or, never marked, the destination's creation) that old by this relay's clock, and unchanged for
   * {@linkcode PIN_QUIET_MS} of it.
   */
  async abandoned(pinned: { id: string; createdAt: number }[]): Promise<string[]> {
    const now = this.#now();
    const out: string[] = [];
    const present = new Set<string>();
    for (let i = 0; i < pinned.length; i += 10) {
      const chunk = pinned.slice(i, i + 10);
      const marks = await this.#kv.getMany<unknown[]>(chunk.map((d) => pinHeldKey(d.id)));
      for (const [j, d] of chunk.entries()) {
        present.add(d.id);
        const { value, versionstamp } = marks[j];
        const seen = this.#seen.get(d.id);
        if (seen === undefined || seen.versionstamp !== versionstamp) {
          this.#seen.set(d.id, { versionstamp, since: now });
          continue;
        }
        if (now - heldAt(value, d.createdAt, seen.since, now) > PIN_ABANDONED_MS && now - seen.since >= PIN_QUIET_MS) {
          out.push(d.id);
        }
      }
    }
    for (const id of this.#seen.keys()) if (!present.has(id)) this.#seen.delete(id);
    return out;
  }
}
