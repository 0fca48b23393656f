/**
 * Parts the webhook pages share: the register form's fields, reading an
 * entity's fields, and the webhooks table.
 *
 * @module
 */

import type { VNode } from "preact";
import type { Webhook } from "../../webhooks/mod.ts";

export interface RegisterForm {
  tenantId: string;
  events: string[];
  object: string;
  callback: string;
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
  { hooks, names, labels = new Map() }: {
    hooks: Webhook[];
    names: Map<string, string>;
    labels?: Map<string, { name: string }>;
  },
): VNode {
  return (
    <table id="webhooks">
      <thead>
        <tr>
          <th scope="col">Webhook</th>
          <th scope="col">Community</th>
          <th scope="col">Events</th>
          <th scope="col">Object</th>
          <th scope="col">Callback</th>
          <th scope="col">Webhook URL</th>
        </tr>
      </thead>
      <tbody>
        {hooks.length === 0 && (
          <tr>
            <td colSpan={6}>No webhooks.</td>
          </tr>
        )}
        {hooks.map((w) => (
          <tr key={w.id} data-webhook={w.id}>
            <td>
              <a href={`/webhooks/${encodeURIComponent(w.id)}`}>{labels.get(w.id)?.name || w.id}</a>
            </td>
            <td>{names.get(w.tenantId) ?? w.tenantId}</td>
            <td>{entityField(w.entity, "events")}</td>
            <td>{entityField(w.entity, "object")}</td>
            <td>
              <code>{entityField(w.entity, "callback")}</code>
            </td>
            <td>
              <code>{selfRef(w)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Adds the webhook routes to `app`. */
