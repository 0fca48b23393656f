// Drift between the platform and the local records of one community: the
// report, and the fixes.

import { listAll, pendingKey, webhookByTenantPrefix, withLockRetry } from "../kv/mod.ts";
import { readPendings } from "./_pending.ts";
import { type PlatformContext, platformRequest, platformUrl } from "./_platform.ts";
import { eventsList, keepingRefs } from "./_answer.ts";
import { platformOperation } from "../telemetry/mod.ts";
import { requireNumber } from "../_util.ts";
import type {
  Community,
  DriftField,
  Orphan,
  PendingRegistration,
  ReconcileReport,
  Webhook,
  WebhookEntity,
} from "../types.ts";
import type { ReconcileOptions } from "../options.ts";

/** Most pages of the platform's list followed before giving up. */
const MAX_PAGES = 1_000;

/**
 * Most bytes of the platform's list read, all pages together, before giving
 * up: the hooks read are kept until the report is built, and a thousand pages
 * of up to 16 MiB each would otherwise be held at once.
 */
const MAX_LIST_BYTES = 64 * 1024 * 1024;

/** What reconciling needs from the store. */
export interface ReconcileDeps {
  kv: Deno.Kv;
  ctx: PlatformContext;
  community: Community;
  options: ReconcileOptions;
  newId: () => string;
  findByTenantID(tenantId: string): Promise<Webhook[]>;
  findByWebhookURL(url: string): Promise<Webhook[]>;
  writeRecord(
    record: Webhook,
    extend?: (op: Deno.AtomicOperation, current: Deno.KvEntryMaybe<Webhook>) => boolean | Promise<boolean>,
  ): Promise<unknown>;
  removeRecord(id: string, expected?: Webhook): Promise<boolean>;
  deleteOnPlatform(entity: WebhookEntity): Promise<void>;
}

/** How old (ms) a registration's entry must be before reconcile takes it as abandoned, unless `staleAfter` says. */
export const STALE_AFTER_MS = 60_000;

/** Builds the report for a community and, with `fix`, repairs the drift. */
export async function reconcileCommunity(deps: ReconcileDeps): Promise<ReconcileReport> {
  const { kv, community, options } = deps;
  const staleAfter = options.staleAfter ?? STALE_AFTER_MS;
  requireNumber(staleAfter, "staleAfter", "reconcile", "a number of ms");
  if (!Number.isFinite(staleAfter) || staleAfter < 0) {
    throw new RangeError(`Cannot reconcile: 'staleAfter' must be a number of ms of 0 or more, got ${staleAfter}`);
  }
  // Local state first: a record saved after this read belongs to a hook the
  // platform already has, so it can never look dangling.
  const local = await deps.findByTenantID(community.tenantId);
  // For a fix that brings records level: each record's copy in the tenant index, whose versionstamp is the record's
  // (one commit writes both), read before the list. A record changed after it, even changed back, is left.
  const before = options.fix ? await listAll<Webhook | string>(kv, webhookByTenantPrefix(community.tenantId)) : [];
  const remote = await listPlatformHooks(deps);
  // Pending entries after the platform's list: a registration writes its entry before its POST, so a hook in the
  // list has its entry here, or its record by the time a fix looks (the same atomic operation clears the one and
  // saves the other). Read before the list, a registration started in between left an unexplained orphan that
  // deleteUnknown deleted while the registration went on to save its record.
  const pendings = await readPendings(kv, community.tenantId); // junk entries passed over, left as they are
  const now = Date.now();

  const remoteRefs = new Set(remote.map((entity) => refOf(community, entity)));
  const localRefs = new Set(local.map((record) => refOf(community, record.entity)));
  const matched = local.filter((record) => remoteRefs.has(refOf(community, record.entity)));
  const dangling = local.filter((record) => !remoteRefs.has(refOf(community, record.entity)));

  const unused = new Set(pendings);
  const orphans: Orphan[] = [];
  const inProgress = new Set<WebhookEntity>();
  for (const entity of remote) {
    if (localRefs.has(refOf(community, entity))) continue;
    const explaining = [...unused].find((p) => now - p.startedAt >= staleAfter && sameRequest(p, entity)) ?? null;
    if (explaining) {
      unused.delete(explaining);
    } else if (pendings.some((p) => now - p.startedAt < staleAfter && sameRequest(p, entity))) {
      inProgress.add(entity); // a registration running right now: never delete its hook
    }
    orphans.push({ entity, pending: explaining });
  }
  const abandoned = [...unused].filter((p) => now - p.startedAt >= staleAfter);
  const report = { matched, orphans, dangling } as ReconcileReport;
  const byRef = new Map(remote.map((entity) => [refOf(community, entity), entity]));
  // Matched records older than their hook (an update() that died after the platform took its PUT): what --fix levels.
  const behind = matched.map((record) => {
    const hook = byRef.get(refOf(community, record.entity))!;
    return { record, hook, fields: driftFields(record.entity ?? {}, hook) };
  }).filter(({ fields }) => fields.length > 0);
  // Not enumerable: the report's shape stays API.md's { matched, orphans, dangling }.
  Object.defineProperty(report, "abandoned", { value: abandoned, enumerable: false });
  Object.defineProperty(report, "drifted", { value: behind, enumerable: false });
  if (options.fix) {
    await applyFixes(deps, report, inProgress);
    const pairs: [Deno.KvEntry<Webhook>, WebhookEntity][] = [];
    for (const entry of before) {
      // An index entry of the earlier layout (the record's id) holds no copy: that record is left as it is. So is
      // one edited by hand into another shape (no copy of its key's record): it is passed over and left.
      if (typeof entry.value !== "object" || entry.value === null || entry.value.id !== entry.key.at(-1)) continue;
      const hook = byRef.get(refOf(community, entry.value.entity));
      if (hook) pairs.push([entry as Deno.KvEntry<Webhook>, hook]);
    }
    await bringLevel(deps, pairs);
  }
  return report;
}

async function applyFixes(deps: ReconcileDeps, report: ReconcileReport, inProgress: Set<WebhookEntity>) {
  const { kv, community } = deps;
  for (const orphan of report.orphans) {
    const ref = refOf(community, orphan.entity);
    // Saved meanwhile by a registration that finished: nothing to do.
    if ((await deps.findByWebhookURL(ref)).length > 0) continue;
    if (orphan.pending) {
      const at = pendingKey(community.tenantId, orphan.pending.id);
      const record: Webhook = { id: deps.newId(), tenantId: community.tenantId, entity: orphan.entity };
      await deps.writeRecord(record, async (op) => {
        const entry = await kv.get(at);
        if (entry.value === null) return false; // adopted by another run, or saved by register meanwhile
        op.check(entry).delete(at);
        return true;
      });
    } else if (deps.options.deleteUnknown && !inProgress.has(orphan.entity)) {
      await deps.deleteOnPlatform(orphan.entity);
    }
  }
  for (const record of report.dangling) await deps.removeRecord(record.id, record);
  for (const pending of report.abandoned) {
    await withLockRetry(() => kv.delete(pendingKey(community.tenantId, pending.id)));
  }
}

/**
 * Saves the platform's hook into each matched record whose fields that
 * update() sets (events, object, callback, enabled) differ from it: an
 * update() that died after the platform took its PUT left the record older.
 * A record changed since it was read before the list (an update saved
 * meanwhile) is left to that update.
 */
async function bringLevel(deps: ReconcileDeps, pairs: [Deno.KvEntry<Webhook>, WebhookEntity][]): Promise<void> {
  for (const [{ value: record, versionstamp }, hook] of pairs) {
    const entity = record.entity ?? {};
    if (driftFields(entity, hook).length === 0) continue;
    // A listing entity without an id or self URL (matched through its id) leaves the record its own, as update() does.
    const level: Webhook = { ...record, entity: { ...entity, ...keepingRefs(hook, entity) } };
    await deps.writeRecord(level, (_op, current) => current.versionstamp === versionstamp);
  }
}

/** The fields (of those the platform's `hook` has) whose events, object, callback or state differ from `entity`'s. */
function driftFields(entity: WebhookEntity, hook: WebhookEntity): DriftField[] {
  const fields: DriftField[] = [];
  if ("events" in hook && eventsOf(hook) !== eventsOf(entity)) fields.push("events");
  if ("object" in hook && (hook.object || "") !== (entity.object || "")) fields.push("object");
  if ("callback" in hook && hook.callback !== entity.callback) fields.push("callback");
  if (typeof hook.enabled === "boolean" && hook.enabled !== (entity.enabled ?? true)) fields.push("enabled");
  return fields;
}

/** A hook's events as one sorted list (the platform gives a comma-separated string or a list). */
function eventsOf(entity: { [field: string]: unknown }): string {
  const events = eventsList(entity.events);
  return [...new Set(Array.isArray(events) ? events as string[] : [])].sort().join(",");
}

/** Every hook of the community on the platform, following `links.next`. */
async function listPlatformHooks(deps: ReconcileDeps): Promise<WebhookEntity[]> {
  // API.md: GET {base}/api/core/v3/webhooks, then the platform's links.next.
  const first = platformUrl(deps.community, "/api/core/v3/webhooks");
  const origin = new URL(first).origin;
  const out: WebhookEntity[] = [];
  const seen = new Set<string>();
  let url: string | undefined = first;
  let size = 0;
  for (let page = 0; url !== undefined; page++) {
    if (page >= MAX_PAGES) throw new Error(`Cannot reconcile: the platform's list has more than ${MAX_PAGES} pages`);
    seen.add(url);
    const at: string = url;
    const answer = await platformOperation("list", () => platformRequest(deps.ctx, "GET", at));
    size += answer.size;
    // Before anything is kept or changed: the list is read whole before any fix.
    if (size > MAX_LIST_BYTES) {
      throw new Error(
        `Cannot reconcile: the platform's list is larger than ${MAX_LIST_BYTES} bytes (64 MiB), ` +
          `${size} bytes in its first ${page + 1} pages; nothing was changed`,
      );
    }
    const body = answer.body as { list?: unknown; links?: { next?: unknown } } | null;
    if (!Array.isArray(body?.list)) {
      throw new Error(`Cannot reconcile: GET ${url} answered without a list`);
    }
    out.push(...body.list.filter((item): item is WebhookEntity => typeof item === "object" && item !== null));
    const next: string | undefined = typeof body.links?.next === "string"
      ? new URL(body.links.next, url).href
      : undefined;
    // The token goes only to the community's own origin, and a loop ends.
    if (next !== undefined && new URL(next).origin !== origin) {
      throw new Error(`Cannot reconcile: the platform's next page ${next} is not on ${origin}`);
    }
    url = next !== undefined && !seen.has(next) ? next : undefined;
  }
  return out;
}

/** The hook's self URL, built from its id when the entity lacks one. */
function refOf(community: Community, entity: WebhookEntity | undefined): string {
  const ref = entity?.resources?.self?.ref;
  if (typeof ref === "string" && ref !== "") return ref;
  return platformUrl(community, `/api/core/v3/webhooks/${entity?.id ?? ""}`);
}

/**
 * Whether a pending registration asked for this hook (or request): same callback, object and events. The command
 * line's `hooks register` matches a pending entry to the request it is about to make with it, as reconcile does.
 */
export function sameRequest(pending: PendingRegistration, entity: WebhookEntity): boolean {
  return entity.callback === pending.callback && (entity.object || "") === (pending.object || "") &&
    eventsOf({ events: pending.events }) === eventsOf(entity);
}
