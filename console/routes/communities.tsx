/**
 * Communities: list, add, edit, remove, connect through the community's
 * OAuth, and the reconcile report. Token values and client secrets are
 * never rendered: the pages say whether they are present and when the
 * tokens were last renewed.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import type { ComponentChildren, VNode } from "preact";
import type { Community, ReconcileReport } from "../../webhooks/mod.ts";
import { Confirm, confirmed } from "../components/Confirm.tsx";
import { Csrf } from "../components/Csrf.tsx";
import { Layout } from "../components/Layout.tsx";
import { Pager } from "../components/Pager.tsx";
import {
  type ConsoleEnv,
  cookieName,
  type Deps,
  describeError,
  html,
  layoutFrame,
  noticeOf,
  OAUTH_COOKIE,
  secureCookies,
} from "../lib/context.ts";
import { communityProvider, describeOAuthError, exchangeCode } from "../lib/oauth.ts";
import { COMMUNITY_CALLBACK_PATH } from "../lib/sandbox_connect.ts";
import { startAuthorization } from "./auth.tsx";

/**
 * The community as a browser should reach it: a sandbox community stored by
 * another console on this KV is reached through this console's sandbox,
 * which shares its state, so connecting works whether the other is up.
 */
function browserFacing(deps: Deps, community: Community): Community {
  return community.baseUrl && deps.sandboxAliases.has(community.baseUrl)
    ? { ...community, baseUrl: `${deps.publicUrl}/sandbox` }
    : community;
}

/** The fields of the community form (secrets are never echoed back). */
interface CommunityForm {
  name: string;
  tenantId: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  clearTokens: boolean;
}

function str(v: unknown): string {
  return typeof v === "string" ? v.trim() : "";
}

async function readForm(c: Context<ConsoleEnv>): Promise<CommunityForm> {
  const body = await c.req.parseBody();
  return {
    name: str(body.name),
    tenantId: str(body.tenantId),
    baseUrl: str(body.baseUrl).replace(/\/+$/, ""),
    clientId: str(body.clientId),
    clientSecret: str(body.clientSecret),
    accessToken: str(body.accessToken),
    refreshToken: str(body.refreshToken),
    clearTokens: body.clearTokens === "1",
  };
}

function validate(form: CommunityForm, isNew: boolean): string | null {
  if (!form.name) return "Name is required";
  if (isNew && !form.tenantId) return "Tenant id is required";
  if (form.name.length > 200) return "Name is too long (at most 200 characters)";
  if (form.tenantId.length > 200) {
    return "Tenant id is too long (at most 200 characters)";
  }
  let url: URL;
  try {
    url = new URL(form.baseUrl);
  } catch {
    return `Base URL must be an absolute http(s) URL, got '${form.baseUrl}'`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `Base URL must be an absolute http(s) URL, got '${form.baseUrl}'`;
  }
  if (form.refreshToken && !form.accessToken) {
    return "A refresh token needs an access token";
  }
  return null;
}

/** The origin of a URL, or "" when it is not one. */
function originOf(url: string | undefined): string {
  try {
    return new URL(url ?? "").origin;
  } catch {
    return "";
  }
}

/** Token state as shown: present or absent, and when renewed. */
function TokenState({ community }: { community: Community }): VNode {
  const present = Boolean(community.oauth?.access_token);
  return (
    <span class="token-state">
      <span
        class={present ? "state-present" : "state-absent"}
        data-tokens={present ? "present" : "absent"}
      >
        {present ? "present" : "absent"}
      </span>
      {present && (
        <span class="renewed">
          {" · last renewed "}
          {community.renewedAt ? <time dateTime={community.renewedAt}>{community.renewedAt}</time> : "never"}
        </span>
      )}
    </span>
  );
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

function CommunityFields(
  { form, isNew, community }: {
    form: Partial<CommunityForm>;
    isNew: boolean;
    community?: Community;
  },
): VNode {
  return (
    <>
      <label>
        Name
        <input type="text" name="name" required value={form.name ?? ""} />
      </label>
      <label>
        Tenant id
        {isNew
          ? (
            <input
              type="text"
              name="tenantId"
              required
              value={form.tenantId ?? ""}
            />
          )
          : <code>{form.tenantId}</code>}
      </label>
      <label>
        Base URL
        <input
          type="url"
          name="baseUrl"
          required
          placeholder="https://community.example.com"
          value={form.baseUrl ?? ""}
        />
      </label>
      <label>
        OAuth client id
        <input type="text" name="clientId" value={form.clientId ?? ""} />
      </label>
      <label>
        OAuth client secret {community &&
          (community.clientSecret ? "(set; leave blank to keep)" : "(not set)")}
        <input
          type="password"
          name="clientSecret"
          autocomplete="off"
          value=""
        />
      </label>
      <label>
        Access token {community && (
          <>
            (<TokenState community={community} />; leave blank to keep)
          </>
        )}
        <input
          type="password"
          name="accessToken"
          autocomplete="off"
          value=""
        />
      </label>
      <label>
        Refresh token
        <input
          type="password"
          name="refreshToken"
          autocomplete="off"
          value=""
        />
      </label>
      {community && (
        <label class="check">
          <input type="checkbox" name="clearTokens" value="1" /> Forget the stored tokens
        </label>
      )}
    </>
  );
}

/** Adds the community routes to `app`. */
export function communityRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const communities = deps.webhooks.communities;
  const staleAfter = () => deps.staleAfterMs === undefined ? {} : { staleAfter: deps.staleAfterMs };
  const path = (tenantId: string) => `/communities/${encodeURIComponent(tenantId)}`;

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
              <th>Name</th>
              <th>Tenant id</th>
              <th>Base URL</th>
              <th>Client</th>
              <th>Tokens</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {page.values.length === 0 && (
              <tr>
                <td colSpan={6}>No communities yet.</td>
              </tr>
            )}
            {page.values.map((community) => (
              <tr data-tenant={community.tenantId} key={community.tenantId}>
                <td>
                  <a href={path(community.tenantId)}>{community.name}</a>
                </td>
                <td>
                  <code>{community.tenantId}</code>
                </td>
                <td>{community.baseUrl}</td>
                <td>
                  {community.clientId ?? "—"}
                  {community.clientSecret ? " (secret set)" : ""}
                </td>
                <td>
                  <TokenState community={community} />
                </td>
                <td>
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

  const newPage = (
    c: Context<ConsoleEnv>,
    form: Partial<CommunityForm>,
    error?: string,
  ) =>
    html(
      c,
      <Layout title="Add a community" {...layoutFrame(c, deps)} error={error}>
        <form method="post" action="/communities" class="stack">
          <Csrf token={c.get("session")!.csrf} />
          <CommunityFields form={form} isNew />
          <p>
            Tokens are optional here: you can connect through the community's OAuth afterwards.
          </p>
          <button type="submit">Save</button>
        </form>
      </Layout>,
      error ? 400 : 200,
    );

  app.get("/communities/new", (c) => newPage(c, {}));

  app.post("/communities", async (c) => {
    const form = await readForm(c);
    const error = validate(form, true);
    const keep = { ...form, clientSecret: "", accessToken: "", refreshToken: "" };
    if (error) return newPage(c, keep, error);
    if (await communities.findByTenantID(form.tenantId)) {
      return newPage(
        c,
        keep,
        `A community with tenant id '${form.tenantId}' already exists`,
      );
    }
    const community: Community = {
      name: form.name,
      tenantId: form.tenantId,
      baseUrl: form.baseUrl,
    };
    if (form.clientId) community.clientId = form.clientId;
    if (form.clientSecret) community.clientSecret = form.clientSecret;
    if (form.accessToken) {
      community.oauth = {
        access_token: form.accessToken,
        refresh_token: form.refreshToken,
      };
    }
    try {
      await communities.save(community);
    } catch (err) {
      return newPage(c, keep, describeError(err));
    }
    return c.redirect(`${path(form.tenantId)}?notice=saved`, 303);
  });

  const editPage = (
    c: Context<ConsoleEnv>,
    community: Community,
    form: Partial<CommunityForm>,
    error?: string,
  ) => {
    const tenant = community.tenantId;
    return html(
      c,
      <Layout
        title={`Community ${community.name}`}
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
        error={error}
      >
        <dl class="facts">
          <dt>Tenant id</dt>
          <dd>
            <code id="tenant-id">{tenant}</code>
          </dd>
          <dt>Tokens</dt>
          <dd id="token-state">
            <TokenState community={community} />
          </dd>
        </dl>
        <p>
          {community.clientId
            ? (
              <a class="button" id="connect" href={`${path(tenant)}/connect`}>
                Connect through the community's OAuth
              </a>
            )
            : "Set an OAuth client id to connect through the community's OAuth."}{" "}
          <a href={`/webhooks?${new URLSearchParams({ tenant })}`}>Webhooks</a>{" "}
          <a href={`/webhooks/new?${new URLSearchParams({ tenant })}`}>
            Register a webhook
          </a>{" "}
          <a href={`${path(tenant)}/reconcile`}>Reconcile</a>
        </p>
        <h2>Edit</h2>
        <form method="post" action={path(tenant)} class="stack" id="edit">
          <Csrf token={c.get("session")!.csrf} />
          <CommunityFields form={form} isNew={false} community={community} />
          <button type="submit">Save</button>
        </form>
        <h2>Remove</h2>
        <form method="post" action={`${path(tenant)}/remove`} id="remove">
          <Csrf token={c.get("session")!.csrf} />
          <p>
            Removing the community keeps its webhook records and its hooks on the platform.
          </p>
          <button type="submit" class="danger">Remove {community.name}</button>
        </form>
      </Layout>,
      error ? 400 : 200,
    );
  };

  const formOf = (community: Community): Partial<CommunityForm> => ({
    name: community.name,
    tenantId: community.tenantId,
    baseUrl: community.baseUrl,
    clientId: community.clientId ?? "",
  });

  const notFound = (c: Context<ConsoleEnv>) =>
    html(
      c,
      <Layout title="Community not found" {...layoutFrame(c, deps)}>
        <p>
          No community has that tenant id. <a href="/communities">All communities</a>
        </p>
      </Layout>,
      404,
    );

  app.get("/communities/:tenantId", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    return editPage(c, community, formOf(community));
  });

  app.post("/communities/:tenantId", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    const form = { ...await readForm(c), tenantId: community.tenantId };
    const error = validate(form, false);
    const keep = { ...form, clientSecret: "", accessToken: "", refreshToken: "" };
    if (error) return editPage(c, community, keep, error);
    // The stored secrets go to the base URL (bearer tokens on every call,
    // the client secret when tokens are renewed or the community is
    // connected): never carry them over to another origin unasked.
    const moved = originOf(form.baseUrl) !== originOf(community.baseUrl);
    if (moved && community.clientSecret && !form.clientSecret) {
      return editPage(
        c,
        community,
        keep,
        "The base URL is on another address: type the client secret again to move the community (its stored tokens are forgotten)",
      );
    }
    const updated: Community = {
      ...community,
      name: form.name,
      baseUrl: form.baseUrl,
    };
    if (form.clientId) updated.clientId = form.clientId;
    else delete updated.clientId;
    if (form.clientSecret) updated.clientSecret = form.clientSecret;
    if (form.clearTokens || moved) {
      delete updated.oauth;
      delete updated.renewedAt;
    }
    if (form.accessToken) {
      updated.oauth = {
        access_token: form.accessToken,
        refresh_token: form.refreshToken,
      };
      updated.renewedAt = new Date().toISOString();
    }
    try {
      await communities.save(updated);
    } catch (err) {
      return editPage(c, community, keep, describeError(err));
    }
    return c.redirect(`${path(community.tenantId)}?notice=saved`, 303);
  });

  app.post("/communities/:tenantId/remove", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    if (!confirmed(await c.req.parseBody())) {
      return html(
        c,
        <Layout title={`Remove ${community.name}?`} {...layoutFrame(c, deps)}>
          <Confirm
            action={`${path(community.tenantId)}/remove`}
            csrf={c.get("session")!.csrf}
            label={`Remove ${community.name}`}
            cancel={path(community.tenantId)}
          >
            <p>
              The community's record and its tokens are deleted here. Its webhook records and its hooks on the platform
              stay; add the community again to manage them.
            </p>
          </Confirm>
        </Layout>,
      );
    }
    const removed = await communities.remove(c.req.param("tenantId"));
    if (removed === false) return notFound(c);
    return c.redirect("/communities?notice=removed", 303);
  });

  app.get("/communities/:tenantId/connect", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    const provider = communityProvider(browserFacing(deps, community));
    if (!provider) {
      return editPage(
        c,
        community,
        formOf(community),
        "Set the community's OAuth client id first",
      );
    }
    return await startAuthorization(c, deps, {
      provider,
      callbackPath: COMMUNITY_CALLBACK_PATH,
      pending: { kind: "community", returnTo: path(community.tenantId), tenantId: community.tenantId },
    });
  });

  app.get(COMMUNITY_CALLBACK_PATH, async (c) => {
    const pending = await deps.sessions.takePending(getCookie(c, cookieName(c, deps, OAUTH_COOKIE)));
    deleteCookie(c, cookieName(c, deps, OAUTH_COOKIE), { path: "/", secure: secureCookies(deps, c.req.url) });
    if (!pending || pending.kind !== "community" || !pending.tenantId) {
      return c.redirect("/communities", 302);
    }
    const community = await communities.findByTenantID(pending.tenantId);
    const provider = community && communityProvider(browserFacing(deps, community));
    if (!community || !provider) return notFound(c);
    try {
      const tokens = await exchangeCode(
        provider,
        new URL(c.req.url),
        deps.publicUrl + COMMUNITY_CALLBACK_PATH,
        pending,
        deps.fetch,
      );
      await communities.save({
        ...community,
        oauth: tokens,
        renewedAt: new Date().toISOString(),
      });
    } catch (err) {
      return editPage(
        c,
        community,
        formOf(community),
        `Connecting failed. ${describeOAuthError(err)}`,
      );
    }
    return c.redirect(`${pending.returnTo}?notice=connected`, 303);
  });

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
