/**
 * A community's reconcile page: the platform's hooks beside the console's
 * records (matched, orphans and what explains them, dangling), and the fixes.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { ComponentChildren, VNode } from "preact";
import type { Community, ReconcileReport } from "../../webhooks/mod.ts";
import { Confirm, confirmed } from "../components/Confirm.tsx";
import { Csrf } from "../components/Csrf.tsx";
import { Layout } from "../components/Layout.tsx";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame, noticeOf } from "../lib/context.ts";
import type { CommunityForm } from "./_community_form.tsx";

/** What the community pages share with this one. */
export interface CommunityShared {
  path: (tenantId: string) => string;
  staleAfter: () => { staleAfter?: number };
  notFound: (c: Context<ConsoleEnv>) => Response | Promise<Response>;
  editPage: (
    c: Context<ConsoleEnv>,
    community: Community,
    form: Partial<CommunityForm>,
    error?: string,
  ) => Response | Promise<Response>;
  formOf: (community: Community) => Partial<CommunityForm>;
}

/** One list of the reconcile report: a heading with its count (`#{id}-count`), what the list holds, and the list (`#{id}`). */
function ReportList(
  { id, title, count, note, children }: {
    id: string;
    title: string;
    count: number;
    note?: string;
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
    </>
  );
}

/** Adds the reconcile routes to `app`. */
export function reconcileRoutes(app: Hono<ConsoleEnv>, deps: Deps, shared: CommunityShared): void {
  const communities = deps.webhooks.communities;
  const { path, staleAfter, notFound } = shared;
  const reconcilePage = (
    c: Context<ConsoleEnv>,
    community: Community,
    report: ReconcileReport | null,
    error?: string,
  ) => {
    const tenant = community.tenantId;
    const ref = (e: { resources?: { self?: { ref?: string } } }) => e.resources?.self?.ref ?? "(no self URL)";
    return html(
      c,
      <Layout
        title={`Reconcile ${community.name}`}
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
        error={error}
      >
        <p>
          The platform's hooks of <a href={path(tenant)}>{community.name}</a> compared with the console's records.
        </p>
        {report && (
          <>
            <ReportList id="matched" title="Matched" count={report.matched.length}>
              {report.matched.map((w) => (
                <li key={w.id}>
                  <a href={`/webhooks/${encodeURIComponent(w.id)}`}>{w.id}</a> <code>{ref(w.entity)}</code>
                </li>
              ))}
            </ReportList>
            <ReportList
              id="orphans"
              title="Orphans"
              count={report.orphans.length}
              note="Hooks on the platform that no record knows."
            >
              {report.orphans.map((o, i) => (
                <li key={i}>
                  <code>{ref(o.entity)}</code> {o.pending
                    ? (
                      <span class="pending">
                        explained by an interrupted registration started {new Date(o.pending.startedAt).toISOString()}
                        {" "}
                        (events {o.pending.events.join(", ")}, callback <code>{o.pending.callback}</code>)
                      </span>
                    )
                    : <span class="unknown">no pending registration explains it</span>}
                </li>
              ))}
            </ReportList>
            <ReportList
              id="dangling"
              title="Dangling"
              count={report.dangling.length}
              note="Records whose hook the platform no longer has."
            >
              {report.dangling.map((w) => (
                <li key={w.id}>
                  {w.id} <code>{ref(w.entity)}</code>
                </li>
              ))}
            </ReportList>
            {(report.abandoned ?? []).length > 0 && (
              <ReportList
                id="abandoned"
                title="Abandoned"
                count={report.abandoned.length}
                note="Interrupted registrations that left no hook on the platform."
              >
                {report.abandoned.map((p) => (
                  <li key={p.id}>
                    started {new Date(p.startedAt).toISOString()}, events {p.events.join(", ")}, callback{" "}
                    <code>{p.callback}</code>
                  </li>
                ))}
              </ReportList>
            )}
            <h2>Apply the fixes</h2>
            <form
              method="post"
              action={`${path(tenant)}/reconcile`}
              class="stack"
              id="fix"
            >
              <Csrf token={c.get("session")!.csrf} />
              <p>
                Saves a record for each orphan a pending registration explains and removes dangling records.
              </p>
              <label class="check">
                <input type="checkbox" name="deleteUnknown" value="1" /> Also delete unexplained orphans on the platform
              </label>
              <button type="submit">Apply the fixes</button>
            </form>
          </>
        )}
      </Layout>,
      error && !report ? 502 : 200,
    );
  };

  app.get("/communities/:tenantId/reconcile", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    try {
      const report = await deps.webhooks.reconcile(community, staleAfter());
      return reconcilePage(c, community, report);
    } catch (err) {
      return reconcilePage(c, community, null, describeError(err));
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
    try {
      await deps.webhooks.reconcile(community, {
        ...staleAfter(),
        fix: true,
        deleteUnknown: body.deleteUnknown === "1",
      });
    } catch (err) {
      return reconcilePage(c, community, null, describeError(err));
    }
    return c.redirect(`${path(community.tenantId)}/reconcile?notice=fixed`, 303);
  });
}
