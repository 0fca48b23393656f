/**
 * The communities list, `GET /communities`: a page at a time, each with its
 * client, whether tokens are stored (never their values), and links to its
 * webhooks and its reconcile report.
 *
 * @module
 */

import type { Hono } from "hono";
import type { Community } from "../../webhooks/mod.ts";
import { Layout } from "../components/Layout.tsx";
import { Pager } from "../components/Pager.tsx";
import { type ConsoleEnv, type Deps, html, layoutFrame, noticeOf } from "../lib/context.ts";
import { TokenState } from "./_community_form.tsx";

/** Adds the list page to `app`; `path` names a community's own page. */
export function communityListRoute(app: Hono<ConsoleEnv>, deps: Deps, path: (tenantId: string) => string): void {
  const communities = deps.webhooks.communities;
  app.get("/communities", async (c) => {
    const cursor = c.req.query("cursor") ?? "";
    let page: { values: Community[]; cursor: string };
    let error: string | undefined;
    try {
      page = await communities.list({ cursor: cursor || undefined, limit: 20 });
    } catch (err) {
      if (!(err instanceof TypeError || err instanceof RangeError)) throw err;
      page = { values: [], cursor: "" };
      error = "That page cursor is not valid";
    }
    return html(
      c,
      <Layout title="Communities" {...layoutFrame(c, deps)} notice={noticeOf(c)} error={error}>
        <p>
          <a class="button" href="/communities/new" id="add-community">
            Add a community
          </a>
        </p>
        <table id="communities">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Tenant id</th>
              <th scope="col">Base URL</th>
              <th scope="col">Client</th>
              <th scope="col">Tokens</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.values.length === 0 && (
              <tr>
                <td colSpan={6}>
                  {cursor
                    ? (
                      <>
                        No communities on this page. <a href="/communities">First page</a>
                      </>
                    )
                    : "No communities yet."}
                </td>
              </tr>
            )}
            {page.values.map((community) => (
              <tr data-tenant={community.tenantId} key={community.tenantId}>
                <td data-label="Name">
                  <a href={path(community.tenantId)}>{community.name}</a>
                </td>
                <td data-label="Tenant id">
                  <code>{community.tenantId}</code>
                </td>
                <td data-label="Base URL" class="id">{community.baseUrl}</td>
                <td data-label="Client" class="id">
                  {community.clientId ?? "—"}
                  {community.clientSecret ? " (secret set)" : ""}
                </td>
                <td data-label="Tokens">
                  <TokenState community={community} />
                </td>
                <td data-label="Actions" class="actions">
                  <a
                    href={`/webhooks?${new URLSearchParams({
                      tenant: community.tenantId,
                    })}`}
                  >
                    Webhooks
                  </a>{" "}
                  <a href={`${path(community.tenantId)}/reconcile`}>
                    Reconcile
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <Pager path="/communities" params={{ cursor }} cursor={page.cursor} />
      </Layout>,
    );
  });
}
