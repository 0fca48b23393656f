/**
 * The parts of a community's reconcile page (reconcile.tsx): its lists, and
 * the counts that decide what the fixes do.
 *
 * @module
 */

import type { ComponentChildren, VNode } from "preact";
import type { DriftField, ReconcileReport, WebhookEntity } from "../../webhooks/mod.ts";
import { shownUrl } from "../lib/shown_url.ts";

/** Items a list of the report shows at most: a community of thousands of hooks still gets a page of a few KB each. */
export const SHOWN = 100;

/** The first {@linkcode SHOWN} of `items`. */
export function shown<T>(items: T[]): T[] {
  return items.slice(0, SHOWN);
}

/**
 * One list of the reconcile report: a heading with its count (`#{id}-count`), what the list holds, and the list
 * (`#{id}`) of its first {@linkcode SHOWN} items; past them, a line (`#{id}-more`) says where the whole list is:
 * the CLI's report of `community`, or (no `community`: a list that report, API.md's, does not hold) the fixes.
 */
export function ReportList(
  { id, title, count, note, community, children }: {
    id: string;
    title: string;
    count: number;
    note?: string;
    community?: string;
    children: ComponentChildren;
  },
): VNode {
  return (
    <>
      <h2>
        {title} <span id={`${id}-count`}>{count}</span>
      </h2>
      {note && <p>{note}</p>}
      <ul id={id}>{children}</ul>
      {count > SHOWN && community === undefined && (
        <p class="hint" id={`${id}-more`}>The first {SHOWN} of {count} are shown; Apply the fixes clears them all.</p>
      )}
      {count > SHOWN && community !== undefined && (
        <p class="hint" id={`${id}-more`}>
          The first {SHOWN} of {count} are shown; <code>deno task cli reconcile {nameAndJson(community)}</code>{" "}
          (on the console's KV: its <code>--kv</code> or <code>KV_PATH</code>) lists them all.
        </p>
      )}
    </>
  );
}

/** A community's name quoted for a POSIX shell, and `--json`; after `--` when it starts as an option would. */
function nameAndJson(name: string): string {
  const word = `'${name.replaceAll("'", `'\\''`)}'`;
  return name.startsWith("-") ? `--json -- ${word}` : `${word} --json`;
}

export function entityList(value: unknown): string {
  return Array.isArray(value) ? value.join(", ") : "none";
}

/** Orphans a pending registration explains (adopted by the fixes). */
export function explained(report: ReconcileReport): number {
  return report.orphans.filter((o) => o.pending).length;
}

/** Orphans nothing explains (deleted only on request). */
export function unexplained(report: ReconcileReport): number {
  return report.orphans.length - explained(report);
}

/** What the fixes would change without deleting anything on the platform. */
export function fixable(report: ReconcileReport): number {
  return explained(report) + report.dangling.length + (report.drifted ?? []).length + (report.abandoned ?? []).length;
}

/** A field of a record and of its hook as the page shows it: events as a list, URLs without a password. */
function fieldText(entity: WebhookEntity, field: DriftField): string {
  if (field === "events") return entityList([entity.events ?? []].flat());
  if (field === "enabled") return entity.enabled === false ? "disabled" : "enabled";
  const value = entity[field];
  return typeof value === "string" && value !== "" ? shownUrl(value) : "none";
}

/**
 * The records that differ from their hook on the platform (an update that died after the platform took its PUT, a
 * record restored from a backup), each field here and there: the fixes save the platform's fields into them.
 */
export function DriftList(
  { report, known }: { report: ReconcileReport; known: (id: string) => string },
): VNode | null {
  const drifted = report.drifted ?? [];
  if (drifted.length === 0) return null;
  return (
    <ReportList
      id="drifted"
      title="Differ"
      count={drifted.length}
      note="Records whose events, object, callback or state differ from their hook on the platform (an update that did not finish): Apply the fixes saves the platform's fields into them."
    >
      {shown(drifted).map(({ record, hook, fields }) => (
        <li key={record.id}>
          <a href={`/webhooks/${encodeURIComponent(record.id)}`}>{known(record.id)}</a>:{" "}
          {fields.map((field) =>
            `${field} ${fieldText(record.entity ?? {}, field)} here, ${fieldText(hook, field)} on the platform`
          ).join("; ")}
        </li>
      ))}
    </ReportList>
  );
}
