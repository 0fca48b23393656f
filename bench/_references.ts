// The references Module A's lookups are compared with beside the floor: the
// earlier pointer layout (index entries that hold the record's id: a prefix
// list, then getMany in batches of ten), and a node:sqlite table with indexes
// on tenantId and url, which is what a user would otherwise pick.

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { webhookKey } from "./_layout.ts";
import type { Webhook } from "../webhooks/mod.ts";

function selfUrl(record: Webhook): string {
  return record.entity.resources!.self!.ref!;
}

/** The pointer layout's index keys of a record, under prefixes of their own. */
export function pointerKeys(record: Webhook): Deno.KvKey[] {
  return [["bench_pointer_by_tenant", record.tenantId, record.id], [
    "bench_pointer_by_url",
    selfUrl(record),
    record.id,
  ]];
}

async function byPointers(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Webhook[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list<string>({ prefix })) keys.push(webhookKey(entry.value));
  const out: Webhook[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    for (const entry of await kv.getMany<Webhook[]>(keys.slice(i, i + 10))) {
      if (entry.value !== null) out.push(entry.value);
    }
  }
  return out;
}

/** `findByTenantID` in the pointer layout. */
export function pointerFindByTenantID(kv: Deno.Kv, tenant: string): Promise<Webhook[]> {
  return byPointers(kv, ["bench_pointer_by_tenant", tenant]);
}

/** `findByWebhookURL` in the pointer layout. */
export function pointerFindByWebhookURL(kv: Deno.Kv, url: string): Promise<Webhook[]> {
  return byPointers(kv, ["bench_pointer_by_url", url]);
}

/** `save` in the pointer layout: get, then one atomic check + the record and two pointers. */
export async function pointerSave(kv: Deno.Kv, record: Webhook): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const current = await kv.get(webhookKey(record.id));
  const op = kv.atomic().check(current).set(webhookKey(record.id), record);
  for (const key of pointerKeys(record)) op.set(key, record.id);
  return await op.commit();
}

/** A node:sqlite table of the records, indexed on tenantId and url (WAL journal on a file). */
export class SqliteReference {
  #db: DatabaseSync;
  #insert: StatementSync;
  #byId: StatementSync;
  #byTenant: StatementSync;
  #byUrl: StatementSync;

  /** @param path `:memory:` or a file */
  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    if (path !== ":memory:") this.#db.exec("PRAGMA journal_mode = WAL");
    this.#db.exec(
      "CREATE TABLE webhook (id TEXT PRIMARY KEY, tenantId TEXT NOT NULL, url TEXT, record TEXT NOT NULL);" +
        "CREATE INDEX webhook_tenant ON webhook (tenantId, id); CREATE INDEX webhook_url ON webhook (url, id);",
    );
    this.#insert = this.#db.prepare("INSERT OR REPLACE INTO webhook (id, tenantId, url, record) VALUES (?, ?, ?, ?)");
    this.#byId = this.#db.prepare("SELECT record FROM webhook WHERE id = ?");
    this.#byTenant = this.#db.prepare("SELECT record FROM webhook WHERE tenantId = ? ORDER BY id");
    this.#byUrl = this.#db.prepare("SELECT record FROM webhook WHERE url = ? ORDER BY id");
  }

  /** Inserts many records in one transaction (seeding). */
  insertMany(records: Webhook[]): void {
    this.#db.exec("BEGIN");
    for (const r of records) this.#insert.run(r.id, r.tenantId, selfUrl(r), JSON.stringify(r));
    this.#db.exec("COMMIT");
  }

  /** Saves one record (its own transaction). */
  save(record: Webhook): Promise<void> {
    this.#insert.run(record.id, record.tenantId, selfUrl(record), JSON.stringify(record));
    return Promise.resolve();
  }

  /** The record of an id, or `null`. */
  findByID(id: string): Promise<Webhook | null> {
    const row = this.#byId.get(id) as { record: string } | undefined;
    return Promise.resolve(row ? JSON.parse(row.record) : null);
  }

  /** The records of a tenant, by id. */
  findByTenantID(tenant: string): Promise<Webhook[]> {
    return Promise.resolve((this.#byTenant.all(tenant) as { record: string }[]).map((r) => JSON.parse(r.record)));
  }

  /** The records of a self URL, by id. */
  findByWebhookURL(url: string): Promise<Webhook[]> {
    return Promise.resolve((this.#byUrl.all(url) as { record: string }[]).map((r) => JSON.parse(r.record)));
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }
}
