// The postbacks receiver_kill_test.ts sends (tenant A across four hooks, one
// in four tenant B's) and how it reads them back from the KV: each stored
// once and whole, or not at all.

import assert from "node:assert/strict";
import { REF_A, REF_B, SECRET_B, SIGN_B, signA } from "../_receiver.ts";

/** Tenant A's hooks: the fixtures' hook-a and hooks 100-102, so a postback claims for up to three hooks. */
export const HOOKS_A: [string, string][] = [
  ["hook-a", REF_A],
  ...[100, 101, 102].map((n): [string, string] => [`hook-${n}`, `https://a.example/api/core/v3/webhooks/${n}`]),
];

/** A postback as sent, and what became of it. */
export interface Sent {
  authorization: string;
  body: string;
  activities: Record<string, unknown>[];
  hookIds: string[];
  /** Every answer, in order: "200", "200 duplicate", another status, or "lost" (the connection failed). */
  answers: string[];
  /** Whether a request of it was in flight to the process when it was killed. */
  lost: boolean;
}

/** Postback `p`: tenant B for one in four (all items to hook-b), else tenant A across its hooks. */
export async function postbackOf(p: number, at: number): Promise<Sent> {
  const count = 1 + (p % 3);
  const tenantB = p % 4 === 3;
  const activities: Record<string, unknown>[] = [];
  const hookIds: string[] = [];
  const items = [];
  for (let i = 0; i < count; i++) {
    const [id, ref] = tenantB ? ["hook-b", REF_B] : HOOKS_A[(p + i) % HOOKS_A.length];
    const activity = {
      verb: "jive:created",
      title: `postback ${p} item ${i}`,
      postback: p,
      index: i,
      text: "x".repeat(200 + p % 50),
    };
    activities.push(activity);
    hookIds.push(id);
    items.push({ webhook: ref, activity });
  }
  const timestamp = at - p; // each postback its own header
  const authorization = tenantB ? await signA(timestamp, SIGN_B, SECRET_B) : await signA(timestamp);
  return { authorization, body: JSON.stringify(items), activities, hookIds, answers: [], lost: false };
}

/** Every item row stored, by postback number (from the activity), with the postback id of its key. */
export async function storedRows(
  kv: Deno.Kv,
): Promise<Map<number, { postbackId: string; index: number; value: Row }[]>> {
  const rows = new Map<number, { postbackId: string; index: number; value: Row }[]>();
  for await (const entry of kv.list<Row>({ prefix: ["kill_items"] })) {
    const [, postbackId, index] = entry.key as [string, string, number, string];
    const p = entry.value.activity.postback as number;
    if (!rows.has(p)) rows.set(p, []);
    rows.get(p)!.push({ postbackId, index, value: entry.value });
  }
  return rows;
}

/** An item row as the kill child stores it. */
export interface Row {
  activity: Record<string, unknown>;
  hook: string;
  count: number;
}

/** Where postback `p`'s rows differ from once and whole: a reason, or null. */
export function wholeOnce(sent: Sent, rows: { postbackId: string; index: number; value: Row }[]): string | null {
  const count = sent.activities.length;
  if (rows.length !== count) return `${rows.length} rows for ${count} items`;
  if (new Set(rows.map((row) => row.postbackId)).size !== 1) return "rows under two postback ids";
  const indexes = rows.map((row) => row.index).sort();
  if (JSON.stringify(indexes) !== JSON.stringify([...Array(count).keys()])) return `items ${indexes}`;
  for (const { index, value } of rows) {
    try {
      assert.deepEqual(value, { activity: sent.activities[index], hook: sent.hookIds[index], count });
    } catch {
      return `item ${index} stored as ${JSON.stringify(value).slice(0, 200)}`;
    }
  }
  return null;
}
