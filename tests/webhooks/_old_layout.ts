// A fixture generator of the earlier KV layout, for the migration tests: the
// primary entry ["webhook", id] holds the record, and the index entries
// ["webhook_by_tenant", tenantId, id] and ["webhook_by_url", <url, or its
// SHA-256 digest as bytes past 1024 bytes>, id] hold only the record's id.
// Written here from the layout's description, so that the tests do not
// depend on the code they check.

import type { Webhook } from "../../webhooks/mod.ts";

const encoder = new TextEncoder();

async function urlPart(url: string): Promise<string | Uint8Array> {
  const bytes = encoder.encode(url);
  return bytes.byteLength <= 1024 ? url : new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/**
 * Writes `records` as the earlier layout did: each with its two pointer entries, in one atomic operation. A few
 * records share an operation (up to 100, and well under a KV operation's size limits): what is stored is the same,
 * and a fixture of thousands is written in a fraction of a second on a KV file, not one commit per record.
 */
export async function writeOldLayout(kv: Deno.Kv, records: Webhook[]): Promise<void> {
  let op = kv.atomic();
  let count = 0;
  let bytes = 0;
  const commit = async () => {
    if (count > 0 && !(await op.commit()).ok) throw new Error(`could not write ${count} records`);
    op = kv.atomic();
    count = bytes = 0;
  };
  for (const record of records) {
    const ref = record.entity?.resources?.self?.ref;
    const size = 2 * JSON.stringify(record).length + (typeof ref === "string" ? ref.length : 0) + 200;
    if (count === 100 || (count > 0 && bytes + size > 200_000)) await commit();
    op.set(["webhook", record.id], record);
    op.set(["webhook_by_tenant", record.tenantId, record.id], record.id);
    if (typeof ref === "string" && ref !== "") op.set(["webhook_by_url", await urlPart(ref), record.id], record.id);
    count++;
    bytes += size;
  }
  await commit();
}

/** `n` records spread over `tenants` tenants, ids zero-padded so that they sort. */
export function fixtureRecords(n: number, tenants = 3): Webhook[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `h${String(i).padStart(6, "0")}`;
    return {
      id,
      tenantId: `t${i % tenants}`,
      entity: {
        id: String(i),
        events: ["document"],
        resources: { self: { ref: `https://c.example/api/core/v3/webhooks/${i}` } },
      },
    };
  });
}

/** Every index entry, split by form: pointers (a string id) and copies (a record). */
export async function indexForms(kv: Deno.Kv): Promise<{ pointers: number; copies: Deno.KvEntry<Webhook>[] }> {
  let pointers = 0;
  const copies: Deno.KvEntry<Webhook>[] = [];
  for (const prefix of ["webhook_by_tenant", "webhook_by_url"]) {
    for await (const entry of kv.list<Webhook | string>({ prefix: [prefix] })) {
      if (typeof entry.value === "string") pointers++;
      else copies.push(entry as Deno.KvEntry<Webhook>);
    }
  }
  return { pointers, copies };
}

/** Checks that every index entry is a copy equal to its primary record, and every record has both. */
export async function assertCopiesMatch(kv: Deno.Kv): Promise<number> {
  const { pointers, copies } = await indexForms(kv);
  if (pointers !== 0) throw new Error(`${pointers} pointer entries left`);
  const primaries = new Map<string, Webhook>();
  for await (const entry of kv.list<Webhook>({ prefix: ["webhook"] })) primaries.set(entry.value.id, entry.value);
  for (const copy of copies) {
    const primary = primaries.get(copy.value.id);
    if (JSON.stringify(primary) !== JSON.stringify(copy.value)) {
      throw new Error(`index entry ${String(copy.key[0])}/${copy.value.id} differs from its record`);
    }
  }
  if (copies.length !== 2 * primaries.size) {
    throw new Error(`${copies.length} index copies for ${primaries.size} records`);
  }
  return primaries.size;
}
