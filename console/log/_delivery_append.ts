// Appending to the delivery sequence, with group commit. The writes of one
// process go one group at a time (only other processes race, and a
// versionstamp check on the counter catches them); the postbacks that wait
// while a group commits go together in the next atomic operation, as many as
// fit KV's limits, so the sequence costs one commit per group, not one per
// postback. Each postback keeps its own marker check: one already stored (a
// retry, or another process) is answered with what was stored, and the rest
// of its group is committed again without it.

import type { DeliveryView } from "./_view.ts";
import { type Delivery, dropDelivery, putDelivery, summaryOf, viewOf } from "./_delivery_item.ts";
import { dropTrimmedBelow } from "./_delivery_write.ts";
import { DELIVERY_SEQ_KEY, DELIVERY_VIEW_PREFIX, deliveryKey, deliveryViewKey } from "./_keys.ts";
import { entryBytes, retryLocked } from "../lib/kv_retry.ts";

/** KV's limits of one atomic operation, with room for key encoding. */
const MAX_MUTATIONS = 1000;
const MAX_BYTES = 760_000;
/** What a group may take, leaving room in its operation for trimming as many rows as it adds. */
const GROUP_BYTES = MAX_BYTES - 50_000;
const GROUP_ROWS = 120;
const GROUP_PARTS = 64;
/** Markers one group checks at most: with the counter's, ten checks, what KV Connect takes per operation. */
const GROUP_MARKERS = 9;

/** The rows of one postback (with its marker) or of one refused request (without). */
export interface Part {
  rows: Delivery[];
  marker: Deno.KvKey | null;
}

/** What a postback's marker holds: where its rows are in the sequence. */
interface Marker {
  first: number;
  count: number;
}

interface Job {
  part: Part;
  /** Bytes of its summaries and payloads. */
  bytes: number;
  resolve(views: DeliveryView[]): void;
  reject(error: unknown): void;
}

/** Writes the delivery sequence of one store. */
export class SequenceWriter {
  #kv: Deno.Kv;
  #retain: number;
  #expireIn: number;
  /** The sequence counter as this process last committed it (`null`: read it). */
  #seq: Deno.KvEntry<number> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #waiting: Job[] = [];

  constructor(kv: Deno.Kv, retain: number, expireIn: number) {
    this.#kv = kv;
    this.#retain = retain;
    this.#expireIn = expireIn;
  }

  /** Appends a part; resolves with its summaries (those stored before, when its marker was there already). */
  append(part: Part): Promise<DeliveryView[]> {
    const bytes = part.rows.reduce(
      (sum, row) => sum + entryBytes(deliveryViewKey(0), summaryOf(row)) + entryBytes(deliveryKey(row.id), row),
      0,
    );
    return new Promise((resolve, reject) => {
      this.#waiting.push({ part, bytes, resolve, reject });
      const run = this.#queue.then(() => this.#drain());
      this.#queue = run.catch(() => {});
    });
  }

  /** The summaries of a postback already stored, or `null`. */
  async #stored(marker: Deno.KvKey): Promise<DeliveryView[] | null> {
    const entry = await retryLocked(() => this.#kv.get<Marker>(marker));
    if (!entry.value) return null;
    const { first, count } = entry.value;
    const out: DeliveryView[] = [];
    const selector = { start: deliveryViewKey(first), end: deliveryViewKey(first + count) };
    for await (const e of this.#kv.list(selector)) out.push(viewOf(e.value));
    return out;
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const group = this.#take();
      try {
        const results = group[0].bytes > GROUP_BYTES
          ? [await this.#large(group[0].part)]
          : await this.#commit(group.map((job) => job.part));
        group.forEach((job, i) => job.resolve(results[i]));
      } catch (error) {
        if (group.length === 1) {
          group[0].reject(error);
          continue;
        }
        // One part that cannot be stored (too large for KV, say) fails alone.
        for (const job of group) await this.#commit([job.part]).then(([views]) => job.resolve(views), job.reject);
      }
    }
  }

  /**
   * The next group: the first waiting part, and those after it while they fit
   * one operation. A part whose marker is already in the group waits for the
   * next one, where its marker's check finds the first copy stored.
   */
  #take(): Job[] {
    const group = [this.#waiting.shift()!];
    if (group[0].bytes > GROUP_BYTES) return group;
    const markers = new Set<string>(group[0].part.marker ? [JSON.stringify(group[0].part.marker)] : []);
    let bytes = group[0].bytes;
    let rows = group[0].part.rows.length;
    const later: Job[] = [];
    while (this.#waiting.length > 0 && group.length < GROUP_PARTS) {
      const next = this.#waiting[0];
      if (bytes + next.bytes > GROUP_BYTES || rows + next.part.rows.length > GROUP_ROWS) break;
      if (next.part.marker && markers.size >= GROUP_MARKERS) break;
      this.#waiting.shift();
      const marker = next.part.marker ? JSON.stringify(next.part.marker) : null;
      if (marker !== null && markers.has(marker)) {
        later.push(next);
        continue;
      }
      if (marker !== null) markers.add(marker);
      bytes += next.bytes;
      rows += next.part.rows.length;
      group.push(next);
    }
    this.#waiting.unshift(...later);
    return group;
  }

  /** A postback whose payloads do not fit its operation: they are written first, invisible until then. */
  async #large(part: Part): Promise<DeliveryView[]> {
    const before = part.marker ? await this.#stored(part.marker) : null;
    if (before) return before;
    let op = this.#kv.atomic();
    let bytes = 0;
    for (const row of part.rows) {
      const size = entryBytes(deliveryKey(row.id), row);
      if (bytes + size > MAX_BYTES) {
        const full = op;
        await retryLocked(() => full.commit());
        op = this.#kv.atomic();
        bytes = 0;
      }
      op.set(deliveryKey(row.id), row, { expireIn: this.#expireIn });
      bytes += size;
    }
    await retryLocked(() => op.commit());
    return (await this.#commit([part], false))[0];
  }

  /**
   * Commits parts in one operation: the counter checked and bumped, each
   * marker checked absent and written, the summaries (and, `inline`, the
   * payloads) set, the oldest beyond the retention deleted.
   */
  async #commit(parts: Part[], inline = true): Promise<DeliveryView[][]> {
    const kv = this.#kv;
    const expireIn = this.#expireIn;
    const out: (DeliveryView[] | undefined)[] = parts.map(() => undefined);
    let open = parts.map((_, i) => i);
    for (;;) {
      const added = open.reduce((sum, i) => sum + parts[i].rows.length, 0);
      const used = 1 + open.reduce((sum, i) => sum + 2 + parts[i].rows.length * (inline ? 2 : 1), 0);
      // The counter as this process last wrote it, if it did; the oldest entries only once the log can be full.
      const known = this.#seq;
      const [seq, oldest] = await Promise.all([
        known ?? retryLocked(() => kv.get<number>(DELIVERY_SEQ_KEY)),
        known && known.value + added < this.#retain ? [] : this.#oldest(added, used),
      ]);
      let last = seq.value ?? 0;
      const op = kv.atomic().check(seq);
      const views = new Map<number, DeliveryView[]>();
      for (const i of open) {
        const { rows, marker } = parts[i];
        const mine: DeliveryView[] = rows.map((row, k) => ({ seq: last + 1 + k, ...summaryOf(row) }));
        if (marker) {
          op.check({ key: marker, versionstamp: null })
            .set(marker, { first: last + 1, count: mine.length } satisfies Marker, { expireIn });
        }
        for (const [k, view] of mine.entries()) putDelivery(op, view, inline ? rows[k] : null, expireIn);
        views.set(i, mine);
        last += mine.length;
      }
      op.set(DELIVERY_SEQ_KEY, last);
      // Beyond the retention once these are in: the oldest whose number falls below the kept range.
      const keepFrom = last - this.#retain + 1;
      const dropped = oldest.filter((v) => v.seq < keepFrom);
      for (const old of dropped) dropDelivery(op, old);
      const res = await retryLocked(() => op.commit());
      if (res.ok) {
        this.#seq = { key: DELIVERY_SEQ_KEY, value: last, versionstamp: res.versionstamp };
        if (dropped.length > 0) {
          await dropTrimmedBelow(kv, keepFrom, dropped.map((view) => view.hookId)).catch(() => {});
        }
        for (const i of open) out[i] = views.get(i);
        return out as DeliveryView[][];
      }
      // Another process moved the counter, or a postback was stored before: those are answered, the rest go again.
      this.#seq = null;
      await Promise.all(open.map(async (i) => {
        const marker = parts[i].marker;
        if (marker) out[i] = (await this.#stored(marker)) ?? undefined;
      }));
      open = open.filter((i) => out[i] === undefined);
      if (open.length === 0) return out as DeliveryView[][];
    }
  }

  /** The oldest summaries, as many as trimming may delete beside `used` mutations. */
  async #oldest(added: number, used: number): Promise<DeliveryView[]> {
    const limit = Math.min(2 * added, Math.floor((MAX_MUTATIONS - used) / 4));
    const out: DeliveryView[] = [];
    for await (const e of this.#kv.list({ prefix: DELIVERY_VIEW_PREFIX }, { limit })) out.push(viewOf(e.value));
    return out;
  }
}
