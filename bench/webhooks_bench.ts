// Module A's store against the raw KV operations it does (the floor: one
// prefix list over index copies), two references (the earlier pointer layout,
// and a node:sqlite table indexed on tenantId and url) and the original Node
// SDK's approach (scan every record), at 1k, 10k and 100k records over 100
// tenants, on a KV file and on `:memory:` (SQLite in a file and in memory).
//
//   deno bench -A bench/webhooks_bench.ts
//   BENCH_KV=memory BENCH_SIZES=1000,10000 deno bench -A bench/webhooks_bench.ts
//
// Groups are named `<operation> · <backend> · <size>`; `scripts/bench.ts`
// reads them from `deno bench --json` to build BENCHMARKS.md. Seeding happens
// before any benchmark runs and is not measured by them; its time goes to the
// file named by BENCH_SEED_LOG, when set.

import assert from "node:assert/strict";
import { createWebhooks, type Webhook, type Webhooks } from "../webhooks/mod.ts";
import {
  type Backend,
  type BenchKv,
  cycle,
  openBenchKv,
  PROBE_RECORDS,
  PROBE_TENANT,
  rawFindByID,
  rawFindByTenantID,
  rawFindByWebhookURL,
  rawRemove,
  rawSave,
  recordMaker,
  sdkFind,
  sdkFindByID,
  sdkSave,
  seed,
  type Seeded,
  sizeLabel,
  TENANTS,
} from "./_fixtures.ts";
import { pointerFindByTenantID, pointerFindByWebhookURL, pointerSave, SqliteReference } from "./_references.ts";

const backends = (Deno.env.get("BENCH_KV") ?? "memory,file").split(",").map((b) => b.trim()) as Backend[];
const sizes = (Deno.env.get("BENCH_SIZES") ?? "1000,10000,100000").split(",").map(Number);
const seedLog = Deno.env.get("BENCH_SEED_LOG");
const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? 9);

for (const backend of backends) {
  if (backend !== "memory" && backend !== "file") throw new RangeError(`BENCH_KV: unknown backend "${backend}"`);
}
for (const n of sizes) {
  if (!Number.isInteger(n) || n < TENANTS || n % TENANTS !== 0) throw new RangeError(`BENCH_SIZES: bad size ${n}`);
}
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`BENCH_ROUNDS: bad count ${rounds}`);

const opened: BenchKv[] = [];
globalThis.addEventListener("unload", () => {
  for (const db of opened) db.dispose();
});

/** Iterations of a full scan: enough for a stable mean, few where a scan is slow. */
function scanRuns(n: number): { n: number; warmup: number } {
  if (n >= 100_000) return { n: 4, warmup: 1 };
  if (n >= 10_000) return { n: 10, warmup: 2 };
  return { n: 40, warmup: 5 };
}

/** Iterations per round of a lookup that returns `records` records (about 20 µs a record). */
function lookupRuns(records: number): { n: number } {
  return { n: Math.max(5, Math.round(1_500 / Math.max(1, records))) };
}

/** One seeded database and what its benchmarks need. */
interface Setup {
  backend: Backend;
  n: number;
  kv: Deno.Kv;
  hooks: Webhooks;
  sqlite: SqliteReference;
  seeded: Seeded;
  label: string;
  fresh: () => Webhook;
}

async function prepare(backend: Backend, n: number): Promise<Setup> {
  const db = await openBenchKv(backend);
  opened.push(db);
  const { kv } = db;
  const sqlitePath = backend === "memory" ? ":memory:" : await Deno.makeTempFile({ suffix: ".sqlite3" });
  const sqlite = new SqliteReference(sqlitePath);
  opened.push({
    kv,
    backend,
    dispose() {
      sqlite.close();
      if (sqlitePath === ":memory:") return;
      for (const end of ["", "-wal", "-shm"]) {
        try {
          Deno.removeSync(sqlitePath + end);
        } catch {
          // not there
        }
      }
    },
  });
  const seeded = await seed(kv, n, (records) => sqlite.insertMany(records));
  if (seedLog) {
    await Deno.writeTextFile(seedLog, JSON.stringify({ backend, n, ms: seeded.ms }) + "\n", { append: true });
  }
  const hooks = createWebhooks(kv);

  // Every variant must give the same answer, or the comparison means nothing.
  const someUrl = seeded.urls[n >> 1];
  const byUrl = await hooks.findByWebhookURL(someUrl);
  assert.equal(byUrl.length, 1);
  assert.deepEqual(await rawFindByWebhookURL(kv, someUrl), byUrl);
  assert.deepEqual(await pointerFindByWebhookURL(kv, someUrl), byUrl);
  assert.deepEqual(await sqlite.findByWebhookURL(someUrl), byUrl);
  assert.deepEqual(await sdkFind(kv, { "entity.resources.self.ref": someUrl }), byUrl);
  const probe = await hooks.findByTenantID(PROBE_TENANT);
  assert.equal(probe.length, PROBE_RECORDS);
  assert.deepEqual(await rawFindByTenantID(kv, PROBE_TENANT), probe);
  assert.deepEqual(await sdkFind(kv, { tenantId: PROBE_TENANT }), probe);
  const regular = await hooks.findByTenantID(seeded.tenants[7]);
  assert.equal(regular.length, n / TENANTS);
  assert.deepEqual(await rawFindByTenantID(kv, seeded.tenants[7]), regular);
  assert.deepEqual(await pointerFindByTenantID(kv, seeded.tenants[7]), regular);
  assert.deepEqual(await sqlite.findByTenantID(seeded.tenants[7]), regular);
  assert.deepEqual(await hooks.findByID(seeded.ids[3]), await rawFindByID(kv, seeded.ids[3]));

  return { backend, n, kv, hooks, sqlite, seeded, label: `${backend} · ${sizeLabel(n)}`, fresh: recordMaker() };
}

/** A benchmark of a group: its row name, its function and deno bench options. */
interface Variant {
  name: string;
  fn: (b: Deno.BenchContext) => Promise<void>;
  n?: number;
  warmup?: number;
}

/**
 * Registers a group's variants, rotated by the round so that each takes each
 * position in turn: whatever running first or last in a group does to a
 * measurement cancels out over the rounds. `raw KV` is the baseline.
 */
function group(name: string, round: number, variants: Variant[], scan?: Variant): void {
  const shift = (round - 1) % variants.length;
  const ordered = [...variants.slice(shift), ...variants.slice(0, shift)];
  for (const { name: row, fn, n, warmup } of ordered) {
    Deno.bench({ name: row, group: name, baseline: row === "raw KV", n, warmup, fn });
  }
  // The full scans are slow and 10x to 1000x apart from the rest: the first round only.
  if (scan && round === 1) Deno.bench({ ...scan, group: name });
}

/** The lookups of one database in one round. */
function lookups({ n, kv, hooks, sqlite, seeded, label }: Setup, round: number): void {
  const tag = rounds > 1 ? ` · round ${round}` : "";

  // findByID: one get in every variant (the SDK looked records up by key too).
  {
    const next = cycle(seeded.ids);
    const runs = lookupRuns(1);
    group(`findByID · ${label}${tag}`, round, [
      { name: "raw KV", ...runs, fn: async () => void await rawFindByID(kv, next()) },
      { name: "store", ...runs, fn: async () => void await hooks.findByID(next()) },
      { name: "Node SDK", ...runs, fn: async () => void await sdkFindByID(kv, next()) },
      { name: "node:sqlite", ...runs, fn: async () => void await sqlite.findByID(next()) },
    ]);
  }

  // findByWebhookURL: one pointer list + getMany, against a full scan.
  {
    const next = cycle(seeded.urls);
    const runs = lookupRuns(1);
    group(`findByWebhookURL · ${label}${tag}`, round, [
      { name: "raw KV", ...runs, fn: async () => void await rawFindByWebhookURL(kv, next()) },
      { name: "store", ...runs, fn: async () => void await hooks.findByWebhookURL(next()) },
      { name: "pointer layout", ...runs, fn: async () => void await pointerFindByWebhookURL(kv, next()) },
      { name: "node:sqlite", ...runs, fn: async () => void await sqlite.findByWebhookURL(next()) },
    ], {
      name: "Node SDK",
      ...scanRuns(n),
      fn: async () => void await sdkFind(kv, { "entity.resources.self.ref": next() }),
    });
  }

  // findByTenantID of a tenant that has 10 records at every N: the cost of
  // the lookup itself, which must not grow with N.
  {
    const runs = lookupRuns(PROBE_RECORDS);
    group(`findByTenantID · ${label}${tag}`, round, [
      { name: "raw KV", ...runs, fn: async () => void await rawFindByTenantID(kv, PROBE_TENANT) },
      { name: "store", ...runs, fn: async () => void await hooks.findByTenantID(PROBE_TENANT) },
      { name: "pointer layout", ...runs, fn: async () => void await pointerFindByTenantID(kv, PROBE_TENANT) },
      { name: "node:sqlite", ...runs, fn: async () => void await sqlite.findByTenantID(PROBE_TENANT) },
    ], { name: "Node SDK", ...scanRuns(n), fn: async () => void await sdkFind(kv, { tenantId: PROBE_TENANT }) });
  }

  // findByTenantID of a regular tenant: N / 100 records come back, so the
  // time grows with the answer (but not with the rest of the data).
  {
    const next = cycle(seeded.tenants);
    const runs = lookupRuns(n / TENANTS);
    group(`findByTenantID (N/100 records) · ${label}${tag}`, round, [
      { name: "raw KV", ...runs, fn: async () => void await rawFindByTenantID(kv, next()) },
      { name: "store", ...runs, fn: async () => void await hooks.findByTenantID(next()) },
      { name: "pointer layout", ...runs, fn: async () => void await pointerFindByTenantID(kv, next()) },
      { name: "node:sqlite", ...runs, fn: async () => void await sqlite.findByTenantID(next()) },
    ]);
  }
}

/** The saves of one database in one round (after every lookup: they add records). */
function saves({ backend, kv, hooks, sqlite, label, fresh }: Setup, round: number): void {
  // On a file, enough saves per round that each row pays several SQLite
  // checkpoints (one every few hundred saves), not one or none by chance.
  const n = backend === "file" ? 750 : 600;
  group(`save · ${label}${rounds > 1 ? ` · round ${round}` : ""}`, round, [
    { name: "raw KV", n, fn: async () => void await rawSave(kv, fresh()) },
    { name: "store", n, fn: async () => void await hooks.save(fresh()) },
    { name: "Node SDK", n, fn: async () => void await sdkSave(kv, fresh()) },
    { name: "pointer layout", n, fn: async () => void await pointerSave(kv, fresh()) },
    { name: "node:sqlite", n, fn: async () => void await sqlite.save(fresh()) },
  ]);
  // remove: each iteration saves a fresh record outside the measured part,
  // then removes it (the store) or makes the same KV calls (the floor).
  const removal = (remove: (record: Webhook) => Promise<unknown>) => async (b: Deno.BenchContext) => {
    const record = fresh();
    await rawSave(kv, record);
    b.start();
    await remove(record);
    b.end();
  };
  group(`remove · ${label}${rounds > 1 ? ` · round ${round}` : ""}`, round, [
    { name: "raw KV", n, fn: removal((r) => rawRemove(kv, r)) },
    { name: "store", n, fn: removal((r) => hooks.remove(r.id)) },
  ]);
}

const setups: Setup[] = [];
for (const backend of backends) {
  for (const n of sizes) setups.push(await prepare(backend, n));
}
// Seeding left a lot of garbage: collect it now rather than during a
// measurement (needs --v8-flags=--expose-gc, as scripts/bench.ts passes).
(globalThis as { gc?: () => void }).gc?.();

// Every comparison runs in several short rounds, and each round measures every
// size in turn: a ratio between two rows of a round, or between two sizes of
// a round, compares measurements taken close together, whatever the machine
// was doing meanwhile. scripts/bench.ts keeps the median of those ratios.
for (let round = 1; round <= rounds; round++) {
  for (const setup of setups) lookups(setup, round);
}
for (let round = 1; round <= rounds; round++) {
  for (const setup of setups) saves(setup, round);
}
