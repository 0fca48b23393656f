/**
 * Parts the webhook pages share: the register form's fields, reading an
 * entity's fields, and the webhooks table.
 *
 * @module
 */

import type { ComponentChildren, VNode } from "preact";
import type { Community, Webhook, Webhooks } from "../../webhooks/mod.ts";
import { refusal } from "../lib/outbound.ts";
import { shownUrl } from "../lib/shown_url.ts";
import type { HookHealth } from "../components/HookHealth.tsx";
import { Island } from "../components/Island.tsx";
import LiveHealth from "../islands/LiveHealth.tsx";

export interface RegisterForm {
  tenantId: string;
  events: string[];
  object: string;
  callback: string;
}

/** The first 1,000 items of a paged list, a page of 100 at a time. */
async function firstThousand<T>(
  list: (options: { cursor?: string; limit: number }) => Promise<{ values: T[]; cursor: string }>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ cursor, limit: 100 });
    out.push(...page.values);
    cursor = page.cursor || undefined;
  } while (cursor && out.length < 1000);
  return out;
}

/**
 * `list` with each of `named` it lacks read by its key and added: a picker holds the first 1,000, and one the address
 * names past them (a community's or hook's own link) is still shown, picked and named.
 */
async function withNamed<T>(
  list: T[],
  keyOf: (item: T) => string,
  named: (string | null | undefined)[],
  read: (key: string) => Promise<T | null>,
): Promise<T[]> {
  const have = new Set(list.map(keyOf));
  const missing = [...new Set(named.filter((k): k is string => !!k && !have.has(k)))];
  const found = await Promise.all(missing.map(read));
  return [...list, ...found.filter((item): item is Awaited<T> & T => item !== null)];
}

/** Every community (the first 1,000), for the pickers, with the ones `named` by tenant id. */
export async function allCommunities(
  webhooks: Webhooks,
  ...named: (string | null | undefined)[]
): Promise<Community[]> {
  const list = await firstThousand((options) => webhooks.communities.list(options));
  return await withNamed(list, (c) => c.tenantId, named, (id) => webhooks.communities.findByTenantID(id));
}

/** Every webhook record (the first 1,000), for the pickers, with the ones `named` by id. */
export async function allHooks(webhooks: Webhooks, ...named: (string | null | undefined)[]): Promise<Webhook[]> {
  const list = await firstThousand((options) => webhooks.list(options));
  return await withNamed(list, (h) => h.id, named, (id) => webhooks.findByID(id));
}

/** Why a callback is on an address a platform on the internet cannot reach, or `null`. */
export async function privateCallback(callback: string, publicUrl: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return null;
  }
  try {
    return await refusal(url, { timeoutMs: 5000, allowPrivateNetwork: false, allowOrigins: [publicUrl] });
  } catch {
    return null; // a name that does not resolve is not known to be private
  }
}

export function entityField(entity: Webhook["entity"], field: string): string {
  const v = entity?.[field];
  if (Array.isArray(v)) return v.join(", ");
  return typeof v === "string" ? v : "";
}

export function selfRef(w: Webhook): string {
  return w.entity?.resources?.self?.ref ?? "";
}

export function WebhookTable(
  { hooks, names, labels = new Map(), health, empty = "No webhooks." }: {
    hooks: Webhook[];
    names: Map<string, string>;
    labels?: Map<string, { name: string }>;
    health?: Map<string, HookHealth>;
    /** What the table says when it has no row: what fills it, with a link to that. */
    empty?: ComponentChildren;
  },
): VNode {
  return (
    <table id="webhooks">
      <thead>
        <tr>
          <th scope="col">Webhook</th>
          <th scope="col">State</th>
          <th scope="col">Community</th>
          <th scope="col">Events</th>
          <th scope="col">Object</th>
          <th scope="col">Callback</th>
          <th scope="col">Webhook URL</th>
          {health && <th scope="col">Health</th>}
        </tr>
      </thead>
      <tbody>
        {hooks.length === 0 && (
          <tr>
            <td colSpan={health ? 8 : 7}>{empty}</td>
          </tr>
        )}
        {hooks.map((w) => (
          <tr key={w.id} data-webhook={w.id}>
            <td data-label="Webhook" class={labels.get(w.id)?.name ? undefined : "id"}>
              <a href={`/webhooks/${encodeURIComponent(w.id)}`}>{labels.get(w.id)?.name || w.id}</a>
            </td>
            <td data-label="State" class={w.entity?.enabled === false ? "state-absent" : "state-present"}>
              {w.entity?.enabled === false ? "disabled" : "enabled"}
            </td>
            <td data-label="Community">{names.get(w.tenantId) ?? w.tenantId}</td>
            <td data-label="Events">{entityField(w.entity, "events")}</td>
            <td data-label="Object" class="id">{entityField(w.entity, "object") || "—"}</td>
            <td data-label="Callback">
              <code>{shownUrl(entityField(w.entity, "callback"))}</code>
            </td>
            <td data-label="Webhook URL">
              <code>{selfRef(w)}</code>
            </td>
            {health && (
              <td data-label="Health" class="health-cell">
                <Island name="LiveHealth" props={{ hookId: w.id, health: health.get(w.id) }}>
                  <LiveHealth hookId={w.id} health={health.get(w.id)} />
                </Island>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Adds the webhook routes to `app`. */
