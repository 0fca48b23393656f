// What the delivery store's tests share: numbered items and the receiver's
// postbacks as `write` takes them, the receiver's report of a stored
// postback, a store over a fresh in-memory KV, and a count of keys.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

export const item = (n: number, extra: Record<string, unknown> = {}) => ({
  webhook: "https://jive.example/api/core/v3/webhooks/1",
  activity: { verb: "jive:created", title: `item ${n}`, ...extra },
});

/** The hook the receiver's postbacks below name. */
const HOOK = { id: "h1", tenantId: "t1", entity: { resources: { self: { ref: "https://c.example/w/1" } } } };

/** An item of a postback as the receiver hands it to `write`: API.md's four fields and the extras. */
export function receiverPostback(
  title: string,
  at: { postbackId: string; index: number; count: number; seq: number; receivedAt?: number },
): Parameters<DeliveryStore["write"]>[0] {
  const { receivedAt = Date.now(), ...extras } = at;
  return Object.assign(
    { activity: { verb: "jive:created", title }, webhook: HOOK, community: {}, receivedAt },
    extras,
  ) as unknown as Parameters<DeliveryStore["write"]>[0];
}

/** Stores `n` one-item postbacks numbered 1 to `n` as the receiver's `write` does, postback ids `{tag}{seq}-0…`. */
export async function storeNumbered(kv: Deno.Kv, store: DeliveryStore, n: number, tag: string): Promise<void> {
  const op = kv.atomic();
  for (let seq = 1; seq <= n; seq++) {
    const postbackId = `${tag}${seq}-`.padEnd(64, "0");
    store.write(receiverPostback(`${tag}${seq}`, { postbackId, index: 0, count: 1, seq }), op);
  }
  assert.ok((await op.set(["console_delivery_seq"], n).commit()).ok);
}

/** The receiver's report of a postback it stored, as the console records it. */
export function delivered(postbackId: string, durationMs: number, headers: Record<string, string> = {}) {
  return { postbackId, status: 200, reason: "Delivered", durationMs, receivedAt: 0, bodyExcerpt: "", headers };
}

/** Runs `fn` with a store over a fresh in-memory KV, closed after. */
export async function withStore(fn: (store: DeliveryStore, kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(new DeliveryStore(kv), kv);
  } finally {
    kv.close();
  }
}

export async function count(kv: Deno.Kv, prefix: string): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [prefix] })) n++;
  return n;
}
