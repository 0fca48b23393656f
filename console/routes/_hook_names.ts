/**
 * What a hook is called in lists: the name given on its page, else its
 * events and community ("document, idea · Sandbox"), so that a row names
 * it in words and shows its record id only as a second line.
 *
 * @module
 */

import type { Community, Webhook } from "../../webhooks/mod.ts";
import type { Deps } from "../lib/context.ts";

/**
 * A hook's name in lists: its given name, else its events and its community's name (else its tenant id; a record
 * another tool saved without one: "no community").
 */
export function hookName(hook: Webhook, given: string | undefined, communityName: string | undefined): string {
  if (given) return given;
  const events = Array.isArray(hook.entity?.events) ? (hook.entity.events as unknown[]).map(String).join(", ") : "";
  const community = communityName ??
    (typeof hook.tenantId === "string" && hook.tenantId ? hook.tenantId : "no community");
  return events ? `${events} · ${community}` : `webhook of ${community}`;
}

/** The names of `hooks` by record id (see {@linkcode hookName}). */
export function hookNames(
  hooks: Webhook[],
  labels: Map<string, { name: string }>,
  communities: Community[],
): Record<string, string> {
  const byTenant = new Map(communities.map((c) => [c.tenantId, c.name]));
  return Object.fromEntries(
    hooks.map((h) => [h.id, hookName(h, labels.get(h.id)?.name, byTenant.get(h.tenantId))]),
  );
}

/**
 * A hook as a heading names it: its given name in quotes, as its own page
 * heads it ("Webhook “Orders feed”"), else {@linkcode hookName}'s words;
 * the record id goes on a second line.
 */
export async function headingName(deps: Pick<Deps, "labels" | "webhooks">, hook: Webhook): Promise<string> {
  const given = (await deps.labels.get(hook.id))?.name;
  if (given) return `“${given}”`;
  return hookName(hook, undefined, (await deps.webhooks.findWebhookCommunity(hook))?.name);
}
