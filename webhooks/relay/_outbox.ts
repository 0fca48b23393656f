// The outbox's commits: `write` (into the claim's commit), turning fan-out records into entries, and taking entries
// under a lease, many to a commit under one check of their partition's take counter (finishing them: _finish.ts).

import { commitMending, mendCounter } from "./counters/mod.ts";
import { retryWhileLocked } from "../kv/mod.ts";
import type { Postback } from "../receiver/mod.ts";
import { type CachedDestination, type DestinationCache, linksHook, matches } from "./_cache.ts";
import type { StoredDestination } from "./_destinations.ts";
import {
  checkPostback,
  entryAt,
  type FanoutRecord,
  isFanoutRecord,
  isStoredEntry,
  type Item,
  itemOf,
  newEntryId,
  type OutboxEntry,
  partitionOf,
  type StoredEntry,
  storedFor,
  writtenBody,
} from "./_entry.ts";
import { deleteForward, setForward } from "./_forwards.ts";
import { dueKey, duePrefix, FANOUT_PREFIX, fanoutAfterKey, fanoutKey, OUTBOX_BUMP_KEY, takeKey } from "./_keys.ts";

/** Checks per atomic operation: KV Connect's limit. */
export const MAX_CHECKS = 10;

/** An entry held by this worker: the key it sits at under its lease, that key's versionstamp, and its body. */
export interface Held {
  entry: OutboxEntry;
  key: Deno.KvKey;
  versionstamp: string;
  /** The request's body, encoded once when taken. */
  body: string;
}

/** `relay.write`: one entry per enabled matching destination, or a fan-out record while the list is not fresh. */
export function createWrite(
  cache: DestinationCache,
  now: () => number,
): (postback: Postback, atomic: Deno.AtomicOperation) => void {
  return (postback: Postback, atomic: Deno.AtomicOperation): void => {
    checkPostback(postback);
    const item = itemOf(postback);
    if (!cache.fresh()) {
      const id = newEntryId();
      const writtenAt = now();
      atomic.set(fanoutKey(id), { ...item, id, writtenAt } satisfies FanoutRecord);
      setForward(atomic, { ...item, id, destinationId: null, attempts: 0 }, "pending", writtenAt);
      atomic.sum(OUTBOX_BUMP_KEY, 1n);
      return;
    }
    const at = now();
    let added = false;
    for (const destination of cache.all()) {
      if (!matches(destination, item.hookId)) continue;
      addEntry(atomic, item, destination, at);
      added = true;
    }
    // The receiver's group commit adds the sums of one key once per commit, their amounts summed.
    if (added) atomic.sum(OUTBOX_BUMP_KEY, 1n);
  };
}

/** Adds a new entry of `item` for `destination`, due at `at`, and its pending state, to `atomic`. */
function addEntry(atomic: Deno.AtomicOperation, item: Item, destination: StoredDestination, at: number): void {
  const id = newEntryId();
  atomic.set(dueKey(partitionOf(destination), at, id), storedFor(item, destination.id));
  setForward(
    atomic,
    { id, postbackId: item.postbackId, index: item.index, destinationId: destination.id, attempts: 0 },
    "pending",
    at,
  );
}

/** Entries added by one commit of a fan-out at most: two mutations each, within a commit's 1,000. */
const MAX_FANOUT_ENTRIES = 400;

/**
 * Turns waiting fan-out records into entries with the current list. A
 * record is checked, deleted and turned in one commit; one whose copies do
 * not fit in a commit (a large activity, many destinations) is turned in
 * several, in order of destination id, each checking the record and moving
 * its progress key on, the last deleting both. Resolves with how many were
 * turned.
 */
export async function expandFanouts(kv: Deno.Kv, cache: DestinationCache, now: () => number): Promise<number> {
  const records: Deno.KvEntry<FanoutRecord>[] = [];
  // A damaged record (edited by hand into junk) is passed over, left as it is, and holds back none after it.
  for await (const entry of kv.list<unknown>({ prefix: FANOUT_PREFIX }, { batchSize: 50 })) {
    if (isFanoutRecord(entry.value)) records.push(entry as Deno.KvEntry<FanoutRecord>);
    if (records.length === 50) break;
  }
  if (records.length === 0) return 0;
  if (!cache.fresh()) await cache.load();
  let turned = 0;
  for (const record of records) {
    if (await expandOne(kv, record, cache, now)) turned++;
  }
  return turned;
}

/**
 * Whether `destination` existed when a fan-out record was committed at `versionstamp`: a record unchanged since
 * before that commit did (versionstamps order the commits of a KV, whatever the clocks of the processes that made
 * them); one changed since is judged by the clocks, its `createdAt` against the record's `writtenAt`.
 */
function existedAt(destination: CachedDestination, versionstamp: string, writtenAt: number): boolean {
  return destination.versionstamp < versionstamp || destination.createdAt <= writtenAt;
}

/**
 * Whether a fan-out record committed at `versionstamp` goes to `destination`: one of its hook that existed then and
 * either is enabled now, or was changed since the record (a Disable after the postback was accepted): it may have been
 * enabled when the record was written, so the item waits for it as the entries it had do, paused by the worker that
 * reaches it, rather than being dropped. One disabled and unchanged since was disabled then, and gets none.
 */
function takesRecord(destination: CachedDestination, hookId: string, versionstamp: string, writtenAt: number): boolean {
  if (!existedAt(destination, versionstamp, writtenAt) || destination.damaged !== undefined) return false;
  if (!linksHook(destination, hookId)) return false;
  return destination.enabled || destination.versionstamp > versionstamp;
}

/** Turns one fan-out record into entries; resolves `false` when another worker came first. */
async function expandOne(
  kv: Deno.Kv,
  record: Deno.KvEntry<FanoutRecord>,
  cache: DestinationCache,
  now: () => number,
): Promise<boolean> {
  const { id, writtenAt, ...item } = record.value;
  const size = 2 * JSON.stringify(item.activity).length + 1_024;
  const perCommit = Math.max(1, Math.min(MAX_FANOUT_ENTRIES, Math.floor(MAX_TAKE_BYTES / size)));
  // A record no worker began is the common case: its progress key is checked absent rather than read first (over a KV
  // far away, a round trip less); a commit refused then reads it and goes on from there, or finds the record gone.
  let after = "";
  let checked: Deno.AtomicCheck = { key: fanoutAfterKey(id), versionstamp: null };
  let guessed = true;
  const targets = [...cache.all()]
    .filter((d) => takesRecord(d, item.hookId, record.versionstamp, writtenAt))
    .sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  while (true) {
    const rest = targets.filter((d) => d.id > after);
    const chunk = rest.slice(0, perCommit);
    const last = chunk.length === rest.length;
    const atomic = kv.atomic().check(record).check(checked).sum(OUTBOX_BUMP_KEY, 1n);
    const at = now();
    for (const destination of chunk) addEntry(atomic, item, destination, at);
    if (last) {
      atomic.delete(record.key).delete(fanoutAfterKey(id));
      deleteForward(atomic, record.value);
    } else {
      after = chunk[chunk.length - 1].id;
      atomic.set(fanoutAfterKey(id), after);
    }
    const result = await commitMending(kv, atomic, [OUTBOX_BUMP_KEY]);
    if (!result.ok) {
      if (!guessed) return false;
      guessed = false;
      const progress = await kv.get<unknown>(fanoutAfterKey(id));
      if (progress.versionstamp === null) return false; // the guess held: the record is another worker's or gone
      // Junk there (a KV edited by hand) names no destination to go on after: turned from the first, not dropped.
      [after, checked] = [typeof progress.value === "string" ? progress.value : "", progress];
      continue;
    }
    guessed = false;
    if (last) return true;
    checked = { key: fanoutAfterKey(id), versionstamp: result.versionstamp };
  }
}

/** Entries a filtered list (a worker for some destinations, in the shared partition) reads at once. */
const FILTERED_LIMIT = 500;
/** Entries taken in one commit at most. */
const MAX_TAKE = 64;
/** Bytes of entries moved in one commit at most (estimated; a commit takes 819,200 with keys counted twice). */
const MAX_TAKE_BYTES = 400_000;

/**
 * The due entries of one partition, listed once and taken in batches.
 *
 * Every take of a partition checks and bumps the partition's take counter
 * (`["relay_take", partition]`): a take commits only when no other take of
 * the partition committed since this window read the counter and then
 * listed, so it takes only entries that nobody took meanwhile, with one
 * check for the whole batch rather than one per entry. After its own take
 * the window knows the counter's new versionstamp (its commit's): it takes
 * the rest of its list, and lists again, without reading the counter. An
 * entry whose lease ran out (a worker that stalled or died) is checked on
 * its own as well, since its holder may still finish it. Only takes move an
 * entry that no one holds, so nothing else can make the list stale unseen.
 */
export class DueWindow {
  #kv: Deno.Kv;
  #partition: string;
  #keep: ((entry: StoredEntry) => boolean) | null;
  #due: Deno.KvEntry<StoredEntry>[] = [];
  /** The take counter's versionstamp as last known (`null`: never taken); `undefined`: not known, read first. */
  #counter: string | null | undefined;
  /** Where a filtered list goes on at its next refill: past the due entries of others that it read last time. */
  #resume: Deno.KvKey | undefined;

  /**
   * @param kv the relay's KV
   * @param partition the partition listed
   * @param keep which entries this worker delivers (all when `null`)
   */
  constructor(kv: Deno.Kv, partition: string, keep: ((entry: StoredEntry) => boolean) | null) {
    this.#kv = kv;
    this.#partition = partition;
    this.#keep = keep;
  }

  /** Entries listed and not yet taken. */
  get size(): number {
    return this.#due.length;
  }

  /**
   * Reads the take counter unless known (this window's own last take committed it), then lists up to `limit` entries
   * due at `now`; resolves with the next due time after them.
   */
  async refill(now: number, limit: number): Promise<number> {
    this.#due = [];
    // Read only when not known: the versionstamp of this window's own last take stays good till someone else takes,
    // and their take makes this window's next one fail its check, drop its list and read again here. Over a KV far
    // away that is a round trip less a batch, and one less when an idle worker wakes to a new entry.
    // A counter edited into junk is set right here: every take's `sum` would be refused.
    if (this.#counter === undefined) {
      this.#counter = await mendCounter(this.#kv, await this.#kv.get(takeKey(this.#partition)));
    }
    let next = Infinity;
    // A filtered list reads past the entries of other workers' destinations.
    if (this.#keep !== null) limit = Math.max(limit, FILTERED_LIMIT);
    const prefix = duePrefix(this.#partition);
    const selector = this.#resume ? { prefix, start: this.#resume } : { prefix };
    let read = 0;
    let last: Deno.KvKey | undefined;
    for await (const entry of this.#kv.list<StoredEntry>(selector, { limit })) {
      const dueAt = entry.key[2] as number;
      if (dueAt > now) {
        next = dueAt;
        break;
      }
      read++;
      last = entry.key;
      // A damaged one (edited by hand into junk) names no destination to send to: passed over, not thrown at.
      if (!isStoredEntry(entry.value)) continue;
      if (this.#keep === null || this.#keep(entry.value)) this.#due.push(entry);
    }
    // A filtered list that read its limit of due entries goes on from the last of them next time, and starts over
    // once it reaches the end: its destinations' entries behind a backlog of others' (whose worker is down, say)
    // are reached, a limit's worth per look, rather than never.
    this.#resume = this.#keep !== null && read === limit ? last : undefined;
    return next;
  }

  /** Takes up to `n` listed entries under a lease until `until`; none when another take came first (the list is dropped). */
  async take(n: number, owner: string, until: number): Promise<Held[]> {
    const counter = takeKey(this.#partition);
    const atomic = this.#kv.atomic().check({ key: counter, versionstamp: this.#counter ?? null }).sum(counter, 1n);
    const moved: Omit<Held, "versionstamp">[] = [];
    let checks = 1;
    let bytes = 0;
    while (moved.length < Math.min(n, MAX_TAKE) && this.#due.length > 0) {
      const listed = this.#due[0];
      const body = writtenBody(listed.value); // null: an activity edited by hand that JSON cannot write (a BigInt)
      if (body === null) {
        this.#due.shift(); // passed over and left as it is, as other damaged entries are
        continue;
      }
      const size = 2 * body.length + 512;
      const expired = listed.value.lease !== undefined;
      if ((expired && checks === MAX_CHECKS) || (moved.length > 0 && bytes + size > MAX_TAKE_BYTES)) break;
      this.#due.shift();
      if (expired) {
        atomic.check(listed);
        checks++;
      }
      bytes += size;
      // Copied in the form it was stored in (an earlier version's included): the key tells the id and partition.
      const stored: StoredEntry = { ...listed.value, lease: { owner, until } };
      const key = dueKey(this.#partition, until, listed.key[3] as string);
      atomic.delete(listed.key).set(key, stored);
      moved.push({ entry: entryAt(key, stored), key, body });
    }
    if (moved.length === 0) return [];
    const result = await retryWhileLocked(() => atomic.commit());
    if (!result.ok) {
      [this.#due, this.#counter] = [[], undefined];
      return [];
    }
    this.#counter = result.versionstamp;
    return moved.map((m) => ({ ...m, versionstamp: result.versionstamp }));
  }
}
