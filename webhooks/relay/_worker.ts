// A worker: takes due entries under a lease, delivers them with at most
// `concurrency` in flight, and records each turn's end. It sleeps until the
// next due entry (at most `pollMs`) and wakes on the watched outbox counter.

import { mendCounters } from "./counters/mod.ts";
import type { CachedDestination, DestinationCache } from "./_cache.ts";
import { deliver, type HostGuard, type Outcome } from "./_deliver.ts";
import type { StoredEntry } from "./_entry.ts";
import { attemptRecord, type Finish, finishes, FinishQueue, reasonOf } from "./_finish.ts";
import { destinationKey, DESTINATIONS_VERSION_KEY, OUTBOX_BUMP_KEY, SHARED_PARTITION } from "./_keys.ts";
import type { PinMarks } from "./pins/mod.ts";
import { readable } from "./damaged/mod.ts";
import { settlePaused } from "./paused/mod.ts";
import { settlePartitions, settleRemoved } from "./removal/mod.ts";
import { nextWait, type ResolvedOptions, type ResolvedRun } from "./_options.ts";
import { DueWindow, expandFanouts, type Held } from "./_outbox.ts";
import type { Destinations, RelayWorker } from "./_types.ts";
import { inRelay, relayEnded, relayStarted } from "../telemetry/mod.ts";
import { Pace, steadyClock, Wake } from "./pace/mod.ts";

const HOUSEKEEPING_MS = 60_000;
/** A buffered entry starts only while its lease outlasts its attempt by this much (or half the spare lease). */
const LEASE_MARGIN_MS = 2_000;
/** Most due entries listed at once. */
const MAX_WINDOW = 64;

/** What a worker shares with its relay. */
export interface WorkerContext {
  kv: Deno.Kv;
  cache: DestinationCache;
  destinations: Destinations;
  options: ResolvedOptions;
  guard: HostGuard;
  pins: PinMarks;
}

/** Starts a worker; `onStopped` is called once it has stopped. */
export function startWorker(ctx: WorkerContext, run: ResolvedRun, onStopped: () => void): RelayWorker {
  const { kv, cache, options } = ctx;
  const owner = crypto.randomUUID();
  const wake = new Wake();
  const abort = new AbortController();
  const queue = new FinishQueue(kv);
  // Due times and leases by a clock that never steps back; the attempt's signed time is the relay's `now` itself.
  const clock = steadyClock(options.now);
  const finish = finishes(clock);
  const inFlight = new Set<Promise<void>>();
  const only = run.destinations ? new Set(run.destinations) : null;
  let stopped = false;
  let housekeptAt = -Infinity;
  let bumped = true; // fan-out records are looked for when the outbox counter moved, or once per poll
  let fanoutsAt = -Infinity;
  // Entries are taken several to a commit into a buffer beside those in flight, so that a freed slot starts the next
  // entry at once: `concurrency` of them, or what the slots use up during a take of a KV far away (pace/mod.ts); a
  // buffered entry whose lease would run out during its attempt is given back.
  const buffer: Held[] = [];
  // Due entries are listed once per partition and taken from that list in batches (see DueWindow).
  const windows = new Map<string, DueWindow>();
  const listSize = (room: number) => room > 2 * run.concurrency ? room : Math.min(MAX_WINDOW, room);
  const minBatch = Math.max(1, Math.min(10, Math.floor(run.concurrency / 2)));
  const margin = Math.min(LEASE_MARGIN_MS, (options.leaseMs - options.attemptTimeoutMs) / 2);
  const pace = new Pace(run.concurrency, options.leaseMs - options.attemptTimeoutMs - margin);

  const watch = kv.watch([OUTBOX_BUMP_KEY, DESTINATIONS_VERSION_KEY]);
  const reader = watch.getReader();
  const watching = (async () => {
    let version: string | null | undefined;
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      if (version !== undefined && value[1].versionstamp !== version) cache.invalidate();
      version = value[1].versionstamp;
      bumped = true;
      wake.notify();
    }
  })().catch(() => {});

  function partitions(): string[] {
    if (!only) return [SHARED_PARTITION];
    const out = new Set<string>();
    for (const id of only) {
      const destination = cache.get(id);
      if (!destination || destination.pinned) out.add(id);
      if (!destination || !destination.pinned) out.add(SHARED_PARTITION);
    }
    return [...out];
  }

  function windowsNow(): DueWindow[] {
    return partitions().map((partition) => {
      let window = windows.get(partition);
      if (!window) {
        const keep = only !== null && partition === SHARED_PARTITION
          ? (entry: StoredEntry) => only.has(entry.destinationId)
          : null;
        windows.set(partition, window = new DueWindow(kv, partition, keep));
      }
      return window;
    });
  }

  async function housekeeping(): Promise<void> {
    housekeptAt = performance.now();
    if (!cache.fresh()) await cache.load();
    const pinned = [...cache.all()].filter((d) => d.pinned);
    await ctx.pins.mark(pinned.filter((d) => only?.has(d.id)).map((d) => d.id));
    const step = (done: Promise<unknown>) => done.catch(() => {}); // a failed look holds back none after it
    await step(settlePaused(kv, cache, only, clock));
    await step(settlePartitions(kv, cache));
    await step(settleRemoved(kv));
    await step(mendCounters(kv, [OUTBOX_BUMP_KEY, DESTINATIONS_VERSION_KEY])); // junk in one refuses every write
    const abandoned = await ctx.pins.abandoned(pinned.filter((d) => !only?.has(d.id)));
    for (const id of abandoned) await step(ctx.destinations.remove(id)); // each tried, whichever fails
  }

  function report(held: Held, destination: CachedDestination, outcome: Outcome): void {
    const { id: entryId, hookId } = held.entry;
    try {
      run.onAttempt?.({ ...attemptRecord(outcome), entryId, destinationId: destination.id, hookId });
    } catch {
      // A printout that throws does not stop deliveries.
    }
  }

  /** What an attempt's end writes; `wait`: the schedule's next (`null`: that was the last); `gone`: what a 410 did. */
  function after(held: Held, outcome: Outcome, wait: number | null, gone: string | false): Finish {
    if (outcome.aborted) return finish.giveBack(held);
    if (outcome.status >= 200 && outcome.status < 300) return finish.delivered(held, outcome);
    if (gone) return finish.dead(held, outcome, `HTTP 410: the destination ${gone}`);
    if (wait === null) return finish.dead(held, outcome, reasonOf(outcome));
    return finish.retry(held, outcome, clock() + Math.max(wait, outcome.retryAfterMs ?? 0));
  }

  async function handle(held: Held): Promise<void> {
    // A list older than a second is confirmed first (one `get` while nothing changed): a local file's watch misses
    // other processes' changes, and a destination disabled, moved or removed there was attempted until housekeeping.
    // A reload that failed confirms nothing: the entry is left to be taken again when its lease ends.
    if (!cache.fresh() && !await cache.load()) return;
    let destination = cache.get(held.entry.destinationId);
    if (!destination) {
      await cache.load();
      destination = cache.get(held.entry.destinationId);
    }
    if (!destination) {
      // Dropped only if KV says it is gone (a failed load misses one added elsewhere); else taken when its lease ends.
      if ((await kv.get(destinationKey(held.entry.destinationId))).value !== null) return cache.invalidate();
      return void await queue.push(finish.drop(held));
    }
    if (!destination.enabled) return await pause(held);
    const [t, began] = [relayStarted(held.entry.id, destination.id, destination.url), performance.now()];
    const outcome = await inRelay(t, deliver, held.entry, held.body, destination, options, ctx.guard, abort.signal);
    const [wait, ended] = [nextWait(options.schedule, held.entry.attempts + 1), performance.now()];
    if (!outcome.aborted) pace.attempted(ended - began);
    // A refused disable (the record damaged meanwhile, KV failing) still ends the entry, its reason saying so.
    const gone = outcome.status === 410 && await ctx.destinations.update(destination.id, { enabled: false })
      .then(() => "was disabled", () => "could not be disabled and was left as it was");
    const finished = after(held, outcome, wait, gone);
    // Counted once committed: `dead` or `gone` only when its dead letter was written (docs/observability.md).
    const dead = () => finished.committed === true && (wait === null || outcome.status === 410);
    // Its destination gone (removed past its mark's day, a worker stopped that long): no retry or dead letter. The
    // attempt is counted as it ends even when that read fails (the entry is then taken again when its lease ends).
    const settle = async () => {
      const removed = finished.ifRemoved && (await kv.get(destinationKey(destination.id))).versionstamp === null;
      await queue.push(removed ? finished.ifRemoved! : finished);
    };
    await settle().finally(() => t && relayEnded(t, outcome, dead(), ended));
    if (!outcome.aborted) report(held, destination, outcome);
  }

  /** Keeps a disabled destination's entry, untried (docs/relay.md); read fresh, a damaged record counts disabled. */
  async function pause(held: Held): Promise<void> {
    const fresh = await kv.get(destinationKey(held.entry.destinationId));
    if (fresh.versionstamp === null) return void await queue.push(finish.drop(held));
    if (readable(held.entry.destinationId, fresh.value).enabled) {
      cache.invalidate();
      return void await queue.push(finish.giveBack(held));
    }
    if (!await queue.push(finish.park(held, fresh))) await queue.push(finish.giveBack(held));
  }

  function pump(): void {
    while (!stopped && inFlight.size < run.concurrency && buffer.length > 0) {
      const held = buffer.shift()!;
      if (held.entry.lease!.until - clock() < options.attemptTimeoutMs + margin) {
        queue.push(finish.giveBack(held)).catch(() => {});
      } else start(held);
    }
  }

  function start(held: Held): void {
    const began = performance.now();
    const task: Promise<void> = handle(held).catch(() => {
      // The KV failed while finishing: the lease runs out and the entry is taken again.
    }).finally(() => {
      if (!stopped) pace.turned(performance.now() - began); // a slot's whole turn, its recording commit included
      inFlight.delete(task);
      pump();
      wake.notify();
    });
    inFlight.add(task);
  }

  /** Takes due entries into the buffer when there is room; resolves whether it took any, and the next due time. */
  async function takeSome(): Promise<{ took: boolean; next: number }> {
    const room = pace.room();
    const free = room - inFlight.size - buffer.length;
    if (free < minBatch && !(free > 0 && inFlight.size === 0)) return { took: false, next: Infinity };
    const current = windowsNow();
    let window = current.find((w) => w.size > 0);
    let next = Infinity;
    const began = performance.now();
    if (!window) {
      const now = clock();
      const nexts = await Promise.all(current.map((w) => w.refill(now, listSize(room) + 1)));
      next = Math.min(...nexts);
      window = current.find((w) => w.size > 0);
    }
    if (!window || stopped) return { took: false, next };
    buffer.push(...await window.take(free, owner, clock() + options.leaseMs));
    pace.took(performance.now() - began);
    pump();
    return { took: true, next };
  }

  // Housekeeping runs beside the loop, not in its way: a worker's first take does not wait for it.
  let housekeepingRun: Promise<void> | null = null;
  const loop = (async () => {
    while (!stopped) {
      let next = Infinity;
      try {
        if (!housekeepingRun && performance.now() - housekeptAt > HOUSEKEEPING_MS) {
          housekeepingRun = housekeeping().catch(() => {
            // The KV failed (or closed): tried again at the next interval.
          }).finally(() => housekeepingRun = null);
        }
        // Fan-out records are turned into entries while due entries are listed and taken (those entries are
        // taken at the next look).
        let fanouts: Promise<number> | null = null;
        if (bumped || performance.now() - fanoutsAt > options.pollMs) {
          bumped = false;
          fanoutsAt = performance.now();
          fanouts = expandFanouts(kv, cache, clock);
        }
        const [turned, taken] = await Promise.all([fanouts, takeSome()]);
        if (taken.took || (turned ?? 0) > 0) continue;
        next = taken.next;
      } catch (error) {
        if (error instanceof Error && /closed/i.test(error.message)) break;
        next = clock() + options.pollMs;
      }
      if (stopped) break;
      await wake.wait(Math.min(options.pollMs, Math.max(1, next - clock())));
    }
  })();

  let stopping: Promise<void> | null = null;
  function stop(): Promise<void> {
    stopping ??= (async () => {
      stopped = true;
      abort.abort();
      wake.notify();
      await reader.cancel().catch(() => {});
      await watching;
      await loop;
      await housekeepingRun;
      for (const held of buffer.splice(0)) queue.push(finish.giveBack(held)).catch(() => {});
      while (inFlight.size > 0) await Promise.all(inFlight);
      await queue.drain();
      onStopped();
    })();
    return stopping;
  }
  run.signal?.addEventListener("abort", () => void stop(), { once: true });
  if (run.signal?.aborted) void stop();
  return { stop };
}
