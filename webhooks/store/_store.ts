// The webhook records in KV: the primary entry and its two index entries
// (by tenant, by self URL), each holding a copy of the record, written and
// removed together in one atomic operation guarded by the primary entry's
// versionstamp. Lookups are one prefix list. Index entries written by the
// earlier layout hold the record's id (a pointer); readers follow those, and
// migrate() turns them into copies.

import {
  commitWithRetry,
  getManyBatched,
  MAX_VALUE_BYTES,
  unlessKeyTooLarge,
  unstorableError,
  updateMarkerPrefix,
  urlKeyPart,
  WEBHOOK_PREFIX,
  webhookByTenantKey,
  webhookByTenantPrefix,
  webhookByUrlKey,
  webhookByUrlPrefix,
  webhookKey,
  withLockRetry,
} from "../kv/mod.ts";
import { describe } from "../_util.ts";
import { kvCursorFor, storePageCursor } from "./_page_cursor.ts";
import type { MigrateReport, Page, Webhook, WebhookEntity } from "../types.ts";
import type { MigrateOptions } from "../options.ts";

/** The record's own platform URL (`entity.resources.self.ref`), if any. */
export function selfRef(entity: WebhookEntity | undefined): string | undefined {
  const ref = entity?.resources?.self?.ref;
  return typeof ref === "string" && ref !== "" ? ref : undefined;
}

/** Index entries migrated per atomic operation: two checks each, within ten. */
const MIGRATE_BATCH = 5;

function keyId(key: Deno.KvKey): string {
  return JSON.stringify(key, (_k, v) => v instanceof Uint8Array ? `bytes:${[...v]}` : v);
}

/** The index keys of a record. */
export async function indexKeys(record: Webhook): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  if (typeof record.tenantId === "string") keys.push(webhookByTenantKey(record.tenantId, record.id));
  const ref = selfRef(record.entity);
  if (ref !== undefined) keys.push(webhookByUrlKey(await urlKeyPart(ref), record.id));
  return keys;
}

/** Turns KV's value-size error into a RangeError naming the record and the limit; an unstorable value, its field. */
function sizeError(error: unknown, record: Webhook): unknown {
  error = unstorableError(error, `webhook ${describe(record.id)}`, record);
  const message = error instanceof TypeError ? error.message : "";
  if (/value too large/i.test(message)) {
    return new RangeError(
      `Cannot save webhook ${describe(record.id)}: it is larger than the ${MAX_VALUE_BYTES} bytes one KV value ` +
        "holds (the record and each of its two index copies is one value)",
    );
  }
  if (/key too large/i.test(message)) {
    return new RangeError(
      `Cannot save webhook ${describe(record.id)}: one of its keys is longer than the 2048 bytes KV allows`,
    );
  }
  return error;
}

/**
 * Writes a record and its index copies in one atomic operation guarded by
 * the record's versionstamp, deleting the index entries of the stored record
 * that no longer apply. `extend` adds mutations and checks of its own (at
 * most 9 more checks), or returns `false` to write nothing; the result is
 * then `null`. It is given the stored record the operation checks.
 */
export async function writeRecord(
  kv: Deno.Kv,
  record: Webhook,
  extend?: (op: Deno.AtomicOperation, current: Deno.KvEntryMaybe<Webhook>) => boolean | Promise<boolean>,
): Promise<Deno.KvCommitResult | null> {
  const newIndex = await indexKeys(record);
  return await commitWithRetry(async () => {
    const current = await kv.get<Webhook>(webhookKey(record.id));
    const op = kv.atomic().check(current);
    if (extend && !(await extend(op, current))) return null;
    if (current.value) {
      const keep = new Set(newIndex.map(keyId));
      for (const key of await indexKeys(current.value)) if (!keep.has(keyId(key))) op.delete(key);
    }
    op.set(webhookKey(record.id), record);
    for (const key of newIndex) op.set(key, record);
    return [op];
  }, "save webhook").catch((error) => {
    throw sizeError(error, record);
  });
}

/** Most update markers (platform/_update_marker.ts) a removal deletes with the record; the rest expire. */
const MAX_MARKERS_REMOVED = 100;

/**
 * Removes a record, its index entries and its updates' markers in one
 * atomic operation guarded by its versionstamp; with `expected`, only while
 * its self URL is still that one. Resolves with whether it removed anything.
 */
export async function removeRecord(kv: Deno.Kv, id: string, expected?: Webhook): Promise<boolean> {
  let removed = false;
  await commitWithRetry(async () => {
    // Read together: the record and its update markers (one wait, not two; usually none). An id too long for a KV
    // key names no record (save refuses one), and has no markers (KV would refuse to read that prefix).
    const [current, markers] = await Promise.all([
      unlessKeyTooLarge(() => kv.get<Webhook>(webhookKey(id)), null),
      unlessKeyTooLarge(
        () => Array.fromAsync(kv.list({ prefix: updateMarkerPrefix(id) }, { limit: MAX_MARKERS_REMOVED })),
        [],
      ),
    ]);
    // KV keys "a\uD800" and "a\uFFFD" alike (a lone surrogate is written as U+FFFD): only this id's record.
    removed = current !== null && current.value !== null && current.value.id === id &&
      (expected === undefined || selfRef(current.value.entity) === selfRef(expected.entity));
    if (!removed) return null;
    const op = kv.atomic().check(current!).delete(webhookKey(id));
    for (const key of await indexKeys(current!.value!)) op.delete(key);
    for (const marker of markers) op.delete(marker.key);
    return [op];
  }, "remove webhook");
  return removed;
}

/**
 * The records of index entries, in their order: a copy is taken as it is; a
 * pointer of the earlier layout is followed to its primary entry (batched).
 * A record that no longer matches (`keep`), or junk, is skipped.
 */
async function resolveEntries(
  kv: Deno.Kv,
  entries: Deno.KvEntry<Webhook | string>[],
  keep: (record: Webhook) => boolean,
): Promise<Webhook[]> {
  const pointers = entries.filter((e) => typeof e.value === "string");
  const followed = new Map<string, Webhook | null>();
  if (pointers.length > 0) {
    const ids = pointers.map((e) => e.value as string);
    const found = await getManyBatched<Webhook>(kv, ids.map(webhookKey));
    ids.forEach((id, i) => followed.set(id, found[i].value));
  }
  const out: Webhook[] = [];
  for (const { key, value } of entries) {
    const record = typeof value === "string" ? followed.get(value) : value;
    if (isRecordOf(record, key.at(-1)) && keep(record)) out.push(record);
  }
  return out;
}

/**
 * Whether a value read is a record of the id its key ends with: an entry edited by hand into junk (a number, a list,
 * an object of another shape, another id's record) is passed over by lists, never handed back as a record.
 */
function isRecordOf(value: unknown, id: Deno.KvKeyPart | undefined): value is Webhook {
  return typeof value === "object" && value !== null && !Array.isArray(value) && (value as Webhook).id === id;
}

/** Every record under an index prefix: one prefix list. */
export async function recordsUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  keep: (record: Webhook) => boolean,
): Promise<Webhook[]> {
  return await unlessKeyTooLarge(() =>
    withLockRetry(async () => {
      const entries: Deno.KvEntry<Webhook | string>[] = [];
      for await (const entry of kv.list<Webhook | string>({ prefix })) entries.push(entry);
      return await resolveEntries(kv, entries, keep);
    }), []);
}

/** The records of one self URL. */
export async function recordsByUrl(kv: Deno.Kv, url: string): Promise<Webhook[]> {
  return await recordsUnder(kv, webhookByUrlPrefix(await urlKeyPart(url)), (r) => selfRef(r.entity) === url);
}

/**
 * One page of records, of every tenant (primary entries) or of one (its index). `cursor` is one a page of the same
 * list gave, else a `TypeError` naming it (nothing read).
 */
export async function listPage(
  kv: Deno.Kv,
  tenantId: string | undefined,
  limit: number,
  cursor: string | null | undefined,
): Promise<Page<Webhook>> {
  const list = { records: tenantId };
  const kvCursor = kvCursorFor(cursor, list, "list webhooks");
  // A tenant id too long for a KV key has no records (save refuses one).
  return await unlessKeyTooLarge(() =>
    withLockRetry(async () => {
      const prefix = tenantId === undefined ? WEBHOOK_PREFIX : webhookByTenantPrefix(tenantId);
      const iter = kv.list<Webhook | string>({ prefix }, { limit, cursor: kvCursor });
      const raw: Deno.KvEntry<Webhook | string>[] = [];
      for await (const entry of iter) raw.push(entry);
      const next = raw.length < limit ? "" : iter.cursor;
      const values = await resolveEntries(kv, raw, (r) => tenantId === undefined || r.tenantId === tenantId);
      return { values, cursor: storePageCursor(next, list) };
    }), { values: [], cursor: "" });
}

/**
 * Turns every pointer index entry into a copy of its record (or deletes it
 * when its record is gone or no longer indexed there), a few entries per
 * atomic operation, each guarded by the entry's and the record's
 * versionstamps. Copies are skipped, so a second run, or a run after a kill,
 * picks up where the first stopped.
 */
export async function migrateIndexes(kv: Deno.Kv, options: MigrateOptions = {}): Promise<MigrateReport> {
  const report: MigrateReport = { scanned: 0, migrated: 0, removed: 0 };
  for (const prefix of [["webhook_by_tenant"], ["webhook_by_url"]] as Deno.KvKey[]) {
    let cursor: string | undefined;
    for (;;) {
      const iter = kv.list<Webhook | string>({ prefix }, { limit: 500, cursor });
      const page: Deno.KvEntry<Webhook | string>[] = [];
      await withLockRetry(async () => {
        for await (const entry of iter) page.push(entry);
      });
      report.scanned += page.length;
      const pointers = page.filter((e) => typeof e.value === "string") as Deno.KvEntry<string>[];
      for (let i = 0; i < pointers.length; i += MIGRATE_BATCH) {
        await migrateBatch(kv, pointers.slice(i, i + MIGRATE_BATCH), report);
      }
      options.onProgress?.({ ...report });
      if (page.length < 500) break;
      cursor = iter.cursor;
    }
  }
  return report;
}

/** Migrates a few pointer entries in one atomic operation; re-reads and retries when a writer raced it. */
async function migrateBatch(kv: Deno.Kv, batch: Deno.KvEntry<string>[], report: MigrateReport): Promise<void> {
  let entries: Deno.KvEntryMaybe<Webhook | string>[] = batch;
  for (let attempt = 1;; attempt++) {
    const live = entries.filter((e) => typeof e.value === "string") as Deno.KvEntry<string>[];
    if (live.length === 0) return;
    const records = await getManyBatched<Webhook>(kv, live.map((e) => webhookKey(e.value)));
    const op = kv.atomic();
    let migrated = 0;
    let removed = 0;
    for (const [i, entry] of live.entries()) {
      const record = records[i];
      op.check(entry).check(record);
      const indexed = record.value !== null &&
        (await indexKeys(record.value)).some((key) => keyId(key) === keyId(entry.key));
      if (indexed) {
        op.set(entry.key, record.value!);
        migrated++;
      } else {
        op.delete(entry.key);
        removed++;
      }
    }
    const result = await withLockRetry(() => op.commit());
    if (result.ok) {
      report.migrated += migrated;
      report.removed += removed;
      return;
    }
    if (attempt >= 20) throw new Error("Cannot migrate: too many concurrent writers, try again");
    entries = await getManyBatched<Webhook | string>(kv, live.map((e) => e.key));
  }
}
