/**
 * A community's reconcile page: the platform's hooks beside the console's
 * records (matched, orphans and what explains them, dangling, records that
 * differ from their hook), and the fixes.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { Community, ReconcileReport } from "../../webhooks/mod.ts";
import { Confirm, confirmed } from "../components/Confirm.tsx";
import { Csrf } from "../components/Csrf.tsx";
import { Layout } from "../components/Layout.tsx";
import { storedIso } from "../components/LocalTime.tsx";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame, noticeOf } from "../lib/context.ts";
import { DRAFT_NOTICE, takeDraft } from "../lib/drafts.ts";
import type { CommunityForm } from "./_community_form.tsx";
import { forgetDestinations, goneHooks, hookExists } from "./_forward_lookups.ts";
import { changedNotice, keepChanges } from "./_reconcile_changes.ts";
import { DriftList, entityList, explained, fixable, ReportList, shown, unexplained } from "./_reconcile_parts.tsx";

/** What the community pages share with this one. */
export interface CommunityShared {
  path: (tenantId: string) => string;
  staleAfter: () => { staleAfter?: number };
  notFound: (c: Context<ConsoleEnv>, error?: string) => Response | Promise<Response>;
  editPage: (
    c: Context<ConsoleEnv>,
    community: Community,
    form: Partial<CommunityForm>,
    error?: string,
    notice?: string,
  ) => Response | Promise<Response>;
  formOf: (community: Community) => Partial<CommunityForm>;
}

/** Why reconciling failed; a community not connected yet is told how to connect it, as the register page does. */
function failure(err: unknown, community: Community): string {
  const message = describeError(err);
  return /no access token/i.test(message)
    ? `${message}. Connect the community first (Communities → ${community.name} → Connect)`
    : message;
}

/** Adds the reconcile routes to `app`. */
export function reconcileRoutes(app: Hono<ConsoleEnv>, deps: Deps, shared: CommunityShared): void {
  const communities = deps.webhooks.communities;
  const { path, staleAfter, notFound } = shared;
  const reconcilePage = async (
    c: Context<ConsoleEnv>,
    community: Community,
    report: ReconcileReport | null,
    error?: string,
    notice?: string,
  ) => {
    const tenant = community.tenantId;
    const labels = await deps.labels.many(
      [...shown(report?.matched ?? []), ...shown(report?.dangling ?? [])].map((w) => w.id),
    );
    /** A record as people know it: its name, else its id. */
    const known = (id: string) => labels.get(id)?.name || id;
    const ref = (e: { resources?: { self?: { ref?: string } } }) => e.resources?.self?.ref ?? "(no self URL)";
    return html(
      c,
      <Layout
        title={`Reconcile ${community.name}`}
        {...layoutFrame(c, deps)}
        notice={notice ?? await changedNotice(c, deps, tenant) ?? noticeOf(c)}
        error={error}
      >
        <p>
          The platform's hooks of <a href={path(tenant)}>{community.name}</a> compared with the console's records.
        </p>
        {report && (
          <>
            <ReportList id="matched" title="Matched" count={report.matched.length} community={community.name}>
              {shown(report.matched).map((w) => (
                <li key={w.id}>
                  <a href={`/webhooks/${encodeURIComponent(w.id)}`}>{known(w.id)}</a> <code>{ref(w.entity)}</code>
                </li>
              ))}
            </ReportList>
            <ReportList
              id="orphans"
              community={community.name}
              title="Orphans"
              count={report.orphans.length}
              note="Hooks on the platform that no record knows."
            >
              {shown(report.orphans).map((o, i) => (
                <li key={i}>
                  <code>{ref(o.entity)}</code> (events {entityList(o.entity.events)}, callback{" "}
                  <code>{typeof o.entity.callback === "string" ? o.entity.callback : "none"}</code>) {o.pending
                    ? (
                      <span class="pending">
                        explained by an interrupted registration started{" "}
                        {storedIso(o.pending.startedAt) ?? "at a time not known"} (events{" "}
                        {o.pending.events.join(", ")}, callback <code>{o.pending.callback}</code>)
                      </span>
                    )
                    : <span class="unknown">no pending registration explains it</span>}
                </li>
              ))}
            </ReportList>
            <ReportList
              id="dangling"
              community={community.name}
              title="Dangling"
              count={report.dangling.length}
              note="Records whose hook the platform no longer has."
            >
              {shown(report.dangling).map((w) => (
                <li key={w.id}>
                  {known(w.id)} {labels.get(w.id)?.name && <>(record {w.id})</>} <code>{ref(w.entity)}</code>
                </li>
              ))}
            </ReportList>
            <DriftList report={report} known={known} />
            {(report.abandoned ?? []).length > 0 && (
              <ReportList
                id="abandoned"
                title="Abandoned"
                count={report.abandoned.length}
                note="Interrupted registrations that left no hook on the platform."
              >
                {shown(report.abandoned).map((p) => (
                  <li key={p.id}>
                    started {storedIso(p.startedAt) ?? "at a time not known"}, events {p.events.join(", ")}, callback
                    {" "}
                    <code>{p.callback}</code>
                  </li>
                ))}
              </ReportList>
            )}
            <h2>Apply the fixes</h2>
            {fixable(report) === 0 && unexplained(report) === 0
              ? <p id="nothing-to-fix">Nothing to fix: the platform and the console agree.</p>
              : (
                <form
                  method="post"
                  action={`${path(tenant)}/reconcile`}
                  class="stack"
                  id="fix"
                >
                  <Csrf token={c.get("session")!.csrf} />
                  <p>
                    {fixable(report) > 0
                      ? `Saves a record for each orphan a pending registration explains (${
                        explained(report)
                      }), removes the dangling records (${report.dangling.length}), saves the platform's fields into the records that differ (${
                        (report.drifted ?? []).length
                      }) and clears the abandoned registrations (${(report.abandoned ?? []).length}).`
                      : "Only unexplained orphans are left: deleting them on the platform is the one fix."}
                  </p>
                  {unexplained(report) > 0 && (
                    <label class="check">
                      <input type="checkbox" name="deleteUnknown" value="1" /> Also delete {unexplained(report) === 1
                        ? "the unexplained orphan"
                        : `the ${unexplained(report)} unexplained orphans`} on the platform
                    </label>
                  )}
                  <button type="submit">Apply the fixes</button>
                </form>
              )}
          </>
        )}
      </Layout>,
      error && !report ? 502 : 200,
    );
  };

  app.get("/communities/:tenantId/reconcile", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    // Back from a sign-in after the session ended: the fixes sent were not applied.
    const notice = await takeDraft(c, deps) ? DRAFT_NOTICE : undefined;
    try {
      const report = await deps.webhooks.reconcile(community, staleAfter());
      return await reconcilePage(c, community, report, undefined, notice);
    } catch (err) {
      return await reconcilePage(c, community, null, failure(err, community), notice);
    }
  });

  app.post("/communities/:tenantId/reconcile", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    const body = await c.req.parseBody();
    if (body.deleteUnknown === "1" && !confirmed(body)) {
      return html(
        c,
        <Layout title="Delete unexplained orphans?" {...layoutFrame(c, deps)}>
          <Confirm
            action={`${path(community.tenantId)}/reconcile`}
            csrf={c.get("session")!.csrf}
            label="Apply the fixes and delete them"
            cancel={`${path(community.tenantId)}/reconcile`}
            fields={{ deleteUnknown: "1" }}
          >
            <p>
              Besides the fixes, every hook on the platform that no record here and no interrupted registration explains
              is deleted on the platform. Another service's hooks in the same community would go too.
            </p>
          </Confirm>
        </Layout>,
      );
    }
    let report: ReconcileReport;
    const deleteUnknown = body.deleteUnknown === "1";
    try {
      report = await deps.webhooks.reconcile(community, { ...staleAfter(), fix: true, deleteUnknown });
    } catch (err) {
      return await reconcilePage(c, community, null, failure(err, community));
    }
    // The dangling records are removed: their "Forward to" destinations go with them, as on Unregister, and so do
    // those of any hook already gone (a reconcile or Unregister killed before it forgot them: its retry no longer
    // sees the record). All at once: a destination shared by two of them would otherwise keep the second (the relay
    // refuses an update that names a hook already gone).
    const gone = [...report.dangling.map((hook) => hook.id), ...await goneHooks(deps)];
    await forgetDestinations(deps.relay, gone, hookExists(deps));
    // What changed, for the page to say (kept for this session, not claimed by the query): the report describes the
    // state found before the fixes.
    await keepChanges(c, deps, community.tenantId, {
      adopted: explained(report),
      removed: report.dangling.length,
      cleared: (report.abandoned ?? []).length,
      deleted: deleteUnknown ? unexplained(report) : 0,
      leveled: (report.drifted ?? []).length,
    });
    return c.redirect(`${path(community.tenantId)}/reconcile?notice=fixed`, 303);
  });
}
