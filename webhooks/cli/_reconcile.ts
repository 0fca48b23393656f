// `reconcile NAME [--fix] [--delete-unknown]`: the drift report, and on each orphan and dangling row what this run
// did with it. The report describes what was found before fixing, and a fix acts on part of it only (an orphan no
// registration explains is deleted only with --delete-unknown; one whose registration may still finish is never
// deleted): a "(fixed)" after the counts had an operator take a drift left on the platform as repaired. What a fix did
// is read back from the store after it (one read of the tenant's records), not assumed.

import { commaList, HOOK_HEAD, hookRow, jsonText, table } from "./_format.ts";
import { shownReport, shownUrl } from "./_shown.ts";
import { unfinishedLine } from "./_reconcile_unfinished.ts";
import type {
  Community,
  DriftField,
  Orphan,
  PendingRegistration,
  ReconcileReport,
  Webhook,
  WebhookEntity,
} from "../types.ts";
// How old a registration's entry must be before reconcile adopts its hook (reconcile's default `staleAfter`).
import { STALE_AFTER_MS } from "../platform/mod.ts";
import type { Webhooks } from "../webhooks.ts";

/** What `reconcile` takes of a command's context (the command table's own context has all of it). */
export interface ReconcileContext {
  hooks: Webhooks;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
  progress(text: string, always?: boolean): void;
  secret(flag: string, variable: string): string | undefined;
  onPlatformPage: (() => void) | null;
}

/** Runs reconcile for `community` and prints its report: the counts, then each orphan and dangling row and what was done. */
export async function reconcileCommand(ctx: ReconcileContext, community: Community): Promise<void> {
  let pages = 0;
  ctx.onPlatformPage = () => ctx.progress(`reading the platform's webhooks: page ${++pages}`, true);
  const fix = ctx.flags.fix === true;
  const deleteUnknown = ctx.flags["delete-unknown"] === true;
  // Read before it too: an unfinished registration that explains no orphan is in no row of the report.
  const before = ctx.json ? [] : await ctx.hooks.pending(community.tenantId);
  const report = await ctx.hooks.reconcile(community, {
    fix,
    deleteUnknown,
    accessToken: ctx.secret("access-token", "ACCESS_TOKEN"),
    refreshToken: ctx.secret("refresh-token", "REFRESH_TOKEN"),
  });
  const shown = shownReport(report);
  if (ctx.json) return ctx.out(jsonText(shown, 2));
  const { matched, orphans, dangling } = shown;
  // Read after it: what a fix adopted is gone; a registration too young to adopt is there, and said so.
  const pendings = orphans.length > 0 || before.length > 0 ? await ctx.hooks.pending(community.tenantId) : [];
  // What is stored now, to say what the fix did rather than what it meant to.
  const now = fix && (orphans.length > 0 || dangling.length > 0)
    ? await ctx.hooks.findByTenantID(community.tenantId)
    : [];
  const at = Date.now();
  const unfinished = unfinishedLine(before, pendings, report.orphans, fix, at);
  const notes = report.orphans.map((o) => orphanNote(o, pendings, at));
  const orphanDone = report.orphans.map((o, i) => orphanAction(o, notes[i], now, fix, deleteUnknown));
  const danglingDone = report.dangling.map((r) =>
    !fix ? "left: --fix removes it here" : now.some((n) => n.id === r.id) ? "left: changed meanwhile" : "removed here"
  );
  ctx.out([
    `${community.name}: ${matched.length} matched, ${orphans.length} orphans, ${dangling.length} dangling`,
    ...(fix ? [doneLine(orphanDone, danglingDone)] : []),
    ...driftLines(report, fix),
    ...(unfinished === null ? [] : [unfinished]),
    ...(orphans.length
      ? [
        "",
        "Orphans (on the platform, no record here):",
        table(
          ["URL", "EXPLAINED BY", "DONE"],
          orphans.map((o, i) => [
            o.entity.resources?.self?.ref ?? String(o.entity.id ?? ""),
            notes[i],
            orphanDone[i],
          ]),
        ),
      ]
      : []),
    ...(dangling.length
      ? [
        "",
        "Dangling (a record here, gone on the platform):",
        table([...HOOK_HEAD, "DONE"], report.dangling.map((r, i) => [...hookRow(r), danglingDone[i]])),
      ]
      : []),
  ].join("\n"));
}

/** What this run did with `orphan`, given its EXPLAINED BY `note` and the tenant's records read after the fix. */
function orphanAction(orphan: Orphan, note: string, now: Webhook[], fix: boolean, deleteUnknown: boolean): string {
  const id = orphan.entity?.id;
  const ref = orphan.entity?.resources?.self?.ref;
  const saved = now.some((r) =>
    (ref !== undefined && r.entity?.resources?.self?.ref === ref) || (id !== undefined && r.entity?.id === id)
  );
  if (orphan.pending) {
    if (!fix) return "left: --fix adopts it";
    return saved ? "adopted: its record is saved here" : "left: not adopted (changed meanwhile), run reconcile again";
  }
  if (note !== "nothing") return "left: its registration may still finish";
  if (saved) return "left: a record of it was saved meanwhile";
  if (!fix || !deleteUnknown) return "left on the platform: --fix --delete-unknown deletes it there";
  return "deleted on the platform";
}

/** The line after the counts on a --fix run: how many rows each action took, from the rows' DONE cells. */
function doneLine(orphanDone: string[], danglingDone: string[]): string {
  const count = (cells: string[], start: string) => cells.filter((c) => c.startsWith(start)).length;
  const left = count(orphanDone, "left") + count(danglingDone, "left");
  return `Done: ${count(orphanDone, "adopted")} orphans adopted, ${
    count(orphanDone, "deleted")
  } deleted on the platform, ${
    count(danglingDone, "removed")
  } dangling records removed here; ${left} left as they were${left > 0 ? " (see DONE below)" : ""}`;
}

/**
 * The EXPLAINED BY cell of `orphan`: its registration's id when the report has it; a registration of its callback
 * in `pendings` (read after the reconcile) still too young to adopt, with when to run `reconcile --fix` again; else
 * `nothing`. A hook whose registration is younger than reconcile's `staleAfter` (a minute) has no explaining entry
 * in the report, yet is no stranger: its register may still be running, or was killed after the platform made the
 * hook, and a `reconcile --fix` run once the entry is a minute old adopts it. "nothing" would have an operator
 * delete it or register again (a second hook).
 */
function orphanNote(orphan: Orphan, pendings: PendingRegistration[], now: number): string {
  if (orphan.pending) return `registration ${orphan.pending.id}`;
  const callback = orphan.entity?.callback;
  const young = pendings.find((p) => p.callback === callback && now - p.startedAt < STALE_AFTER_MS);
  if (!young) return "nothing";
  const age = Math.max(0, Math.floor((now - young.startedAt) / 1000));
  const wait = Math.max(1, Math.ceil((young.startedAt + STALE_AFTER_MS - now) / 1000));
  return `registration ${young.id}, begun ${age} s ago, may still finish: run reconcile --fix again in ${wait} s`;
}

/**
 * The lines of the matched records that differ from their hook on the platform (an update killed after the platform
 * took its PUT): how many, what to do (or that --fix did it), and per record each field here and there. Without them a
 * report of "1 matched" read as the two agreeing.
 */
function driftLines(report: ReconcileReport, fix: boolean): string[] {
  const drifted = report.drifted ?? [];
  if (drifted.length === 0) return [];
  const count = drifted.length === 1 ? "1 record differs" : `${drifted.length} records differ`;
  const done = fix
    ? "saved the platform's fields here (one changed meanwhile is left: run reconcile again)"
    : "reconcile --fix saves the platform's fields here";
  return [
    `${count} from its hook on the platform (an update that did not finish): ${done}`,
    ...drifted.map(({ record, hook, fields }) =>
      `  ${record.id}: ${fieldsApart(record.entity ?? {}, hook, fields).join("; ")}`
    ),
  ];
}

/** Each field named in `fields`, as "callback X here, Y there" (URLs as the CLI shows them: a password is a secret). */
function fieldsApart(here: WebhookEntity, there: WebhookEntity, fields: DriftField[]): string[] {
  const events = (e: WebhookEntity) => commaList([e.events ?? []].flat().join(",")).sort().join(",");
  const url = (value: unknown) => (typeof value === "string" && value !== "" ? shownUrl(value) : "none");
  const shown: Record<DriftField, (e: WebhookEntity) => string> = {
    events,
    object: (e) => url(e.object),
    callback: (e) => url(e.callback),
    enabled: (e) => String(e.enabled ?? true),
  };
  return fields.map((field) => `${field} ${shown[field](here)} here, ${shown[field](there)} there`);
}
