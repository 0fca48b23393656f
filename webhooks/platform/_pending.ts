// The pending-registration entries of a tenant as read: register() writes one
// before its POST; reconcile() and pending() read them. An entry edited by
// hand into junk is passed over (and left as it is), never read field by
// field into a TypeError.

import { listAll, pendingPrefix } from "../kv/mod.ts";
import type { PendingRegistration } from "../types.ts";

/**
 * Whether a value read under `id`'s key is a pending registration of that id with the fields reconcile() matches on
 * (`startedAt`, `callback`, `events`); other fields are as register() wrote them, and not relied upon.
 */
function isPending(value: unknown, id: Deno.KvKeyPart | undefined): value is PendingRegistration {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const p = value as Partial<Record<keyof PendingRegistration, unknown>>;
  return p.id === id && Number.isFinite(p.startedAt) && typeof p.callback === "string" && Array.isArray(p.events);
}

/** The tenant's well-formed pending registrations, oldest id first; junk entries are passed over. */
export async function readPendings(kv: Deno.Kv, tenantId: string): Promise<PendingRegistration[]> {
  const entries = await listAll<unknown>(kv, pendingPrefix(tenantId));
  return entries.flatMap(({ key, value }) => isPending(value, key.at(-1)) ? [value] : []);
}
