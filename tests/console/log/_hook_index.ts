// What the hook index's tests share: the receiver's one-item postbacks to a
// hook, stored a commit at a time as the receiver does, the keys under a
// prefix, and the numbers of a listing.

import assert from "node:assert/strict";
import type { DeliveryStore } from "../../../console/log/mod.ts";
import type { DeliveryView } from "../../../console/log/mod.ts";

export type Written = Parameters<DeliveryStore["write"]>[0];

/** The receiver's item number `seq`, to hook `hookId`, a one-item postback. */
export function postback(hookId: string, seq: number, receivedAt = Date.now()): Written {
  return {
    activity: { verb: "jive:created", title: `${hookId} ${seq}` },
    webhook: { id: hookId, tenantId: "t1", entity: { resources: { self: { ref: `https://c.example/w/${hookId}` } } } },
    community: {},
    receivedAt,
    postbackId: `p${seq}-`.padEnd(64, "0"),
    index: 0,
    count: 1,
    seq,
  } as unknown as Written;
}

/** Stores one delivery per hook of `hooks`, numbered from `from`, in one commit as the receiver does. */
export async function store(kv: Deno.Kv, deliveries: DeliveryStore, hooks: string[], from = 1): Promise<void> {
  // In commits of up to 300 rows: each row is a set and a sum of its written shard, within KV's 1,000 mutations.
  for (let start = 0; start < hooks.length; start += 300) {
    const op = kv.atomic();
    hooks.slice(start, start + 300).forEach((hookId, i) => deliveries.write(postback(hookId, from + start + i), op));
    const last = from + Math.min(hooks.length, start + 300) - 1;
    assert.ok((await op.set(["console_delivery_seq"], last).commit()).ok);
  }
}

export async function keys(kv: Deno.Kv, prefix: string): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: [prefix] })) out.push(entry.key);
  return out;
}

export const seqs = (views: DeliveryView[]) => views.map((view) => view.seq);
