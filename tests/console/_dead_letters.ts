// Dead letters written straight into KV, as the relay stores them, for the console's Forward to page tests.

import type { DeadLetter } from "../../webhooks/mod.ts";

/** The `i`th of a series of dead letters of `hookId` at `destinationId` (ids, times and postbacks in `i`'s order). */
export function deadLetter(i: number, destinationId: string, hookId: string): DeadLetter {
  return {
    id: `msg_${String(i).padStart(26, "0")}`,
    destinationId,
    hookId,
    tenantId: "sandbox-tenant",
    postbackId: `p${i}`,
    index: 0,
    activity: { verb: "jive:created" },
    acceptedAt: i,
    attempts: 8,
    deadAt: 1_000_000 + i,
    reason: "HTTP 500",
  };
}

/** Stores `letter` with its entries by destination and by hook, as the relay does. */
export async function storeDead(kv: Deno.Kv, letter: DeadLetter): Promise<void> {
  await kv.atomic()
    .set(["relay_dead", letter.id], letter)
    .set(["relay_dead_by_destination", letter.destinationId, letter.id], null)
    .set(["relay_dead_by_hook", letter.hookId, letter.deadAt, letter.id], letter.destinationId)
    .set(["relay_dead_by_hook_ready"], true)
    .commit();
}
