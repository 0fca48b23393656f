// Shared data and baselines of the Module A benchmarks: record generation,
// fast seeding, temporary KV databases, the raw KV operations the store does
// (the floor: index entries that hold copies, one prefix list per lookup),
// the earlier pointer layout and a node:sqlite table as references
// (`_references.ts`), and the original Node SDK's way of finding records (a
// scan).

import { monotonicFactory } from "ulid";
import {
  WEBHOOK_PREFIX,
  webhookByTenantKey,
  webhookByTenantPrefix,
  webhookByUrlKey,
  webhookByUrlPrefix,
  webhookKey,
} from "./_layout.ts";
import type { Webhook } from "../webhooks/mod.ts";
import { pointerKeys } from "./_references.ts";

/** Number of tenants the records are spread over. */
export const TENANTS = 100;
/** A tenant that has exactly {@linkcode PROBE_RECORDS} records at every N. */
export const PROBE_TENANT = "tenant-probe";
/** Records of the probe tenant. */
export const PROBE_RECORDS = 10;
/** Records written per atomic operation while seeding (3 mutations each). */
const SEED_BATCH = 50;

/** Where a benchmark KV lives. */
export type Backend = "memory" | "file";

/** A KV database opened for a benchmark. */
export interface BenchKv {
  kv: Deno.Kv;
  backend: Backend;
  /** Closes the database and removes its file. */
  dispose(): void;
}

/** What seeding wrote: the ids and URLs the benchmarks look up. */
export interface Seeded {
  /** Regular records written (without the probe tenant's). */
  n: number;
  /** Milliseconds seeding took. */
  ms: number;
  /** Ids of regular records, in the order written. */
  ids: string[];
  /** Self URLs of regular records, in the order written. */
  urls: string[];
  /** Tenant ids of the regular tenants. */
  tenants: string[];
}

/** `1k`, `10k`, `100k`. */
export function sizeLabel(n: number): string {
  return n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/** The tenant id of tenant number `t`. */
export function tenantId(t: number): string {
  return `tenant-${String(t).padStart(3, "0")}`;
}

/** A record shaped as `register` stores it: the platform's entity of a hook. */
export function makeRecord(id: string, tenant: string, hookNumber: number): Webhook {
  const base = `https://${tenant}.community.example.com`;
  return {
    id,
    tenantId: tenant,
    entity: {
      id: String(hookNumber),
      resources: {
        self: { ref: `${base}/api/core/v3/webhooks/${hookNumber}`, allowed: ["GET", "PUT", "DELETE"] },
      },
      events: ["document", "discussion"],
      object: `${base}/api/core/v3/places/${hookNumber % 37}`,
      callback: `https://service.example.net/postback/${tenant}`,
      enabled: true,
      buggy: false,
    },
  };
}

/** The record's self URL (`entity.resources.self.ref`). */
export function selfUrl(record: Webhook): string {
  return record.entity.resources!.self!.ref!;
}

/** A generator of fresh records: ids strictly increasing, self URLs never seen. */
export function recordMaker(tenants: number = TENANTS): (tenant?: string) => Webhook {
  const newId = monotonicFactory();
  let hook = 50_000_000;
  let i = 0;
  return (tenant) => makeRecord(newId(), tenant ?? tenantId(i++ % tenants), hook++);
}

/**
 * Writes `n` records over {@linkcode TENANTS} tenants, plus the probe tenant's
 * {@linkcode PROBE_RECORDS}, with the same keys as the store (the record and
 * its two index copies) and the pointer layout's entries under prefixes of
 * their own, {@linkcode SEED_BATCH} records per atomic operation. Calls
 * `also` with every record (the node:sqlite reference takes them there).
 */
export async function seed(kv: Deno.Kv, n: number, also?: (records: Webhook[]) => void): Promise<Seeded> {
  const started = performance.now();
  const newId = monotonicFactory();
  const ids: string[] = [];
  const urls: string[] = [];
  const records: Webhook[] = [];
  for (let i = 0; i < n; i++) records.push(makeRecord(newId(), tenantId(i % TENANTS), 1_000_000 + i));
  for (let i = 0; i < PROBE_RECORDS; i++) records.push(makeRecord(newId(), PROBE_TENANT, 9_000_000 + i));
  for (let i = 0; i < records.length; i += SEED_BATCH) {
    const op = kv.atomic();
    for (const record of records.slice(i, i + SEED_BATCH)) {
      const url = selfUrl(record);
      op.set(webhookKey(record.id), record)
        .set(webhookByTenantKey(record.tenantId, record.id), record)
        .set(webhookByUrlKey(url, record.id), record);
      for (const key of pointerKeys(record)) op.set(key, record.id);
    }
    const result = await op.commit();
    if (!result.ok) throw new Error(`Seeding failed at record ${i}`);
  }
  also?.(records);
  for (const record of records.slice(0, n)) {
    ids.push(record.id);
    urls.push(selfUrl(record));
  }
  const tenants = Array.from({ length: TENANTS }, (_, t) => tenantId(t));
  return { n, ms: performance.now() - started, ids, urls, tenants };
}

/** Opens a KV database in memory, or in a file of a fresh temporary folder. */
export async function openBenchKv(backend: Backend): Promise<BenchKv> {
  if (backend === "memory") {
    const kv = await Deno.openKv(":memory:");
    return { kv, backend, dispose: () => kv.close() };
  }
  const dir = await Deno.makeTempDir({ prefix: "webhooks_bench_" });
  const kv = await Deno.openKv(`${dir}/bench.sqlite3`);
  return {
    kv,
    backend,
    dispose() {
      try {
        kv.close();
      } catch {
        // already closed
      }
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/** Cycles through a list: each call gives the next item. */
export function cycle<T>(items: readonly T[]): () => T {
  let i = 0;
  // A stride coprime with most sizes spreads reads over the whole key range.
  return () => items[i = (i + 7919) % items.length];
}

// ---------------------------------------------------------------------------
// The floor: exactly the KV operations the store does, nothing else.

/** `save` as raw KV: read the primary key, then one atomic check + the record and its two copies. */
export async function rawSave(kv: Deno.Kv, record: Webhook): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const current = await kv.get(webhookKey(record.id));
  return await kv.atomic()
    .check(current)
    .set(webhookKey(record.id), record)
    .set(webhookByTenantKey(record.tenantId, record.id), record)
    .set(webhookByUrlKey(selfUrl(record), record.id), record)
    .commit();
}

/** `remove` as raw KV: read the primary key, then one atomic check + delete of the record and its two copies. */
export async function rawRemove(kv: Deno.Kv, record: Webhook): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const current = await kv.get(webhookKey(record.id));
  return await kv.atomic()
    .check(current)
    .delete(webhookKey(record.id))
    .delete(webhookByTenantKey(record.tenantId, record.id))
    .delete(webhookByUrlKey(selfUrl(record), record.id))
    .commit();
}

/** `findByID` as raw KV: one get. */
export async function rawFindByID(kv: Deno.Kv, id: string): Promise<Webhook | null> {
  return (await kv.get<Webhook>(webhookKey(id))).value;
}

/** The records under an index prefix of copies: one prefix list. */
export async function listCopies(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Webhook[]> {
  const out: Webhook[] = [];
  for await (const entry of kv.list<Webhook>({ prefix })) out.push(entry.value);
  return out;
}

/** `findByTenantID` as raw KV: one list of the tenant's index copies. */
export function rawFindByTenantID(kv: Deno.Kv, tenant: string): Promise<Webhook[]> {
  return listCopies(kv, webhookByTenantPrefix(tenant));
}

/** `findByWebhookURL` as raw KV: one list of the URL's index copies. */
export function rawFindByWebhookURL(kv: Deno.Kv, url: string): Promise<Webhook[]> {
  return listCopies(kv, webhookByUrlPrefix(url));
}

// ---------------------------------------------------------------------------
// The original Node SDK (jive-sdk `webhooks.js` over its persistence layer):
// `save` is `persistence.save("webhook", id, webhook)`, `findByID` is
// `persistence.findByID`, and `findByTenantID` / `findByWebhookURL` are
// `persistence.find("webhook", criteria)`, which reads every record of the
// collection and tests the criteria, walking dotted paths such as
// `entity.resources.self.ref`.

/** The SDK's `save`: one set, no indexes. */
export async function sdkSave(kv: Deno.Kv, record: Webhook): Promise<Deno.KvCommitResult> {
  return await kv.set(webhookKey(record.id), record);
}

/** The SDK's `findByID`: a lookup by key. */
export async function sdkFindByID(kv: Deno.Kv, id: string): Promise<Webhook | null> {
  return (await kv.get<Webhook>(webhookKey(id))).value;
}

function valueAt(record: unknown, path: string): unknown {
  let cur = record;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** The SDK's `find(collection, criteria)`: scan every record, match each dotted path. */
export async function sdkFind(kv: Deno.Kv, criteria: Record<string, unknown>): Promise<Webhook[]> {
  const paths = Object.entries(criteria);
  const out: Webhook[] = [];
  for await (const entry of kv.list<Webhook>({ prefix: WEBHOOK_PREFIX })) {
    if (paths.every(([path, wanted]) => valueAt(entry.value, path) === wanted)) out.push(entry.value);
  }
  return out;
}
