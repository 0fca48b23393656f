/**
 * The sandbox's webhooks in Deno KV: numbered as the platform numbers them,
 * replaced and deleted with checks, so requests at the same moment never
 * undo one another.
 *
 * @module
 */

import { webhookKey, webhookPrefix, webhookSeqKey } from "./_keys.ts";

/** A webhook as the sandbox keeps it. */
export interface HookRecord {
  /** The numeric id, as a string on the wire. */
  id: string;
  tenantId: string;
  /** `{origin}{basePath}` at registration time. */
  baseUrl: string;
  events: string[];
  /** The place URI; `undefined` for system hooks. */
  object?: string;
  callback: string;
  enabled: boolean;
  published: string;
  updated: string;
}

/** First webhook id handed out is one more than this. */
const FIRST_WEBHOOK_ID = 1000;
/**
 * A webhook id as the platform writes it: a canonical integer, so "01001",
 * "+1001", "1001.0" or " 1001" name no hook (Number() would read them as 1001).
 */
const CANONICAL_ID = /^[1-9]\d{0,14}$/;

/** Each KV's registrations under way in this process, one after another (see `createHook`). */
const allocating = new WeakMap<Deno.Kv, Promise<unknown>>();

/** The sandbox's webhooks, per tenant. */
export class HookStore {
  #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * Saves a new webhook under the next id. The registrations of one process
   * take their ids one after another (dozens at once all raced for the same
   * number, and past 20 lost tries answered 500); another process on the same
   * KV is met by the counter's check, and tried again after a short random wait.
   */
  createHook(
    fields: Omit<HookRecord, "id">,
  ): Promise<HookRecord> {
    const mine = (allocating.get(this.#kv) ?? Promise.resolve()).then(() => this.#allocate(fields));
    allocating.set(this.#kv, mine.catch(() => {}));
    return mine;
  }

  async #allocate(fields: Omit<HookRecord, "id">): Promise<HookRecord> {
    const seqKey = webhookSeqKey();
    // No id below this one is free: raised past the ids given when the sequence is found behind them.
    let floor = FIRST_WEBHOOK_ID;
    for (let attempt = 0; attempt < 50; attempt++) {
      const seq = await this.#kv.get<unknown>(seqKey);
      // A sequence edited by hand into junk (or left by a bad write) is no sequence: ids go on from the floor.
      const last = typeof seq.value === "number" && Number.isSafeInteger(seq.value) ? seq.value : floor;
      const next = Math.max(last, floor) + 1;
      const key = webhookKey(fields.tenantId, next);
      const hook: HookRecord = { id: String(next), ...fields };
      // Never over a webhook made before (a sequence set back below the ids given).
      const result = await this.#kv.atomic().check(seq).check({ key, versionstamp: null }).set(seqKey, next)
        .set(key, hook).commit();
      if (result.ok) return hook;
      if ((await this.#kv.get(key)).versionstamp !== null) floor = await this.#highestId();
      else await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
    }
    throw new Error("Cannot allocate a sandbox webhook id");
  }

  /** The highest webhook id given, of any tenant (read only when the sequence is found behind the ids given). */
  async #highestId(): Promise<number> {
    let highest = FIRST_WEBHOOK_ID;
    for await (const entry of this.#kv.list({ prefix: webhookPrefix("").slice(0, -1) })) {
      const id = entry.key.at(-1);
      if (typeof id === "number" && Number.isSafeInteger(id)) highest = Math.max(highest, id);
    }
    return highest;
  }

  /** A tenant's webhook by id, or `null`. */
  async hook(tenantId: string, id: string): Promise<HookRecord | null> {
    if (!CANONICAL_ID.test(id)) return null;
    return (await this.#kv.get<HookRecord>(webhookKey(tenantId, Number(id))))
      .value;
  }

  /**
   * Replaces a webhook's record with `change(record)`, applied to the record
   * as stored when it commits (tried again on a newer one); `null` when there
   * is no such webhook, also when a delete took it meanwhile (a plain write
   * brought a hook deleted at the same moment back).
   */
  async updateHook(
    tenantId: string,
    id: string,
    change: (hook: HookRecord) => HookRecord,
  ): Promise<HookRecord | null> {
    if (!CANONICAL_ID.test(id)) return null;
    const key = webhookKey(tenantId, Number(id));
    for (;;) {
      const found = await this.#kv.get<HookRecord>(key);
      if (found.value === null) return null;
      const updated = change(found.value);
      if ((await this.#kv.atomic().check(found).set(key, updated).commit()).ok) return updated;
    }
  }

  /** Deletes a webhook; `false` when there was none (of two deletes at once, one finds it). */
  async deleteHook(tenantId: string, id: string): Promise<boolean> {
    if (!CANONICAL_ID.test(id)) return false;
    const key = webhookKey(tenantId, Number(id));
    for (;;) {
      const found = await this.#kv.get<HookRecord>(key);
      if (found.value === null) return false;
      if ((await this.#kv.atomic().check(found).delete(key).commit()).ok) return true;
    }
  }

  /** All of a tenant's webhooks, oldest first. */
  async allHooks(tenantId: string): Promise<HookRecord[]> {
    const list: HookRecord[] = [];
    for await (
      const entry of this.#kv.list<HookRecord>({
        prefix: webhookPrefix(tenantId),
      })
    ) list.push(entry.value);
    return list;
  }

  /** A page of a tenant's webhooks, oldest first, and whether more remain. */
  async hooks(
    tenantId: string,
    startIndex: number,
    count: number,
  ): Promise<{ list: HookRecord[]; more: boolean }> {
    const list: HookRecord[] = [];
    let index = 0;
    let more = false;
    for await (
      const entry of this.#kv.list<HookRecord>({
        prefix: webhookPrefix(tenantId),
      }, { limit: startIndex + count + 1 })
    ) {
      if (index >= startIndex + count) {
        more = true;
        break;
      }
      if (index >= startIndex) list.push(entry.value);
      index++;
    }
    return { list, more };
  }
}
