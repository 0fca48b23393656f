/**
 * Communities: add, edit and remove (the list is in communities_list.tsx). Token values and client secrets
 * are never rendered: the pages say whether they are present and when the
 * tokens were last renewed. Connecting through the community's OAuth is in
 * community_connect.tsx, the reconcile report in reconcile.tsx.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { type Community, ConflictError } from "../../webhooks/mod.ts";
import { Confirm, confirmed } from "../components/Confirm.tsx";
import { Csrf } from "../components/Csrf.tsx";
import { Layout } from "../components/Layout.tsx";
import { SecretRotationNotice } from "../components/SecretRotationNotice.tsx";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame, noticeOf } from "../lib/context.ts";
import { DRAFT_NOTICE, draftText, takeDraft } from "../lib/drafts.ts";
import {
  applyForm,
  CommunityFields,
  type CommunityForm,
  originOf,
  readForm,
  SECRET_CHANGED,
  TokenState,
  validate,
} from "./_community_form.tsx";
import { faultOf, formToShowAgain } from "./_community_refusal.ts";
import { connectRoutes } from "./community_connect.tsx";
import { secretChanged } from "./_community_secret.ts";
import { addCommunity } from "./_community_add.ts";
import { reconcileRoutes } from "./reconcile.tsx";
import { communityListRoute } from "./communities_list.tsx";
import { limitsFor, RateLimitFacts } from "./_rate_limit_facts.tsx";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";

export function communityRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const communities = deps.webhooks.communities;
  const staleAfter = () => deps.staleAfterMs === undefined ? {} : { staleAfter: deps.staleAfterMs };
  const path = (tenantId: string) => `/communities/${encodeURIComponent(tenantId)}`;

  communityListRoute(app, deps, path);

  const newPage = (
    c: Context<ConsoleEnv>,
    form: Partial<CommunityForm>,
    error?: string,
    notice?: string,
  ) =>
    html(
      c,
      <Layout title="Add a community" {...layoutFrame(c, deps)} error={error} notice={notice}>
        <form method="post" action="/communities" class="stack">
          <Csrf token={c.get("session")!.csrf} />
          <CommunityFields form={form} isNew fault={faultOf(error)} />
          <p>
            Tokens are optional here: you can connect through the community's OAuth afterwards.
          </p>
          <button type="submit">Save</button>
        </form>
      </Layout>,
      error ? 400 : 200,
    );

  app.get("/communities/new", async (c) => {
    // Back from a sign-in after the session ended: the form as it was sent (without its secrets), not saved.
    const draft = await takeDraft(c, deps);
    if (!draft) return newPage(c, {});
    const form = { name: "", tenantId: "", baseUrl: "", clientId: "" };
    for (const name of Object.keys(form) as (keyof typeof form)[]) form[name] = draftText(draft, name);
    return newPage(c, form, undefined, DRAFT_NOTICE);
  });

  app.post("/communities", async (c) => {
    const form = await readForm(c);
    const error = validate(form, true);
    const keep = formToShowAgain(form);
    if (error) return newPage(c, keep, error);
    return await addCommunity(c, deps, form, (message) => newPage(c, keep, message));
  });

  const editPage = async (
    c: Context<ConsoleEnv>,
    community: Community,
    form: Partial<CommunityForm>,
    error?: string,
    notice?: string,
  ) => {
    const tenant = community.tenantId;
    const rotation = await communities.secretRotation(tenant);
    const limits = await limitsFor(c, deps, {
      tenantId: tenant,
      receiver: true,
      sandbox: deps.sandbox && tenant === SANDBOX_COMMUNITY.tenantId,
    });
    return html(
      c,
      <Layout
        title={`Community ${community.name}`}
        {...layoutFrame(c, deps)}
        notice={notice ?? noticeOf(c)}
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
        <SecretRotationNotice
          rotation={rotation}
          now={Date.now()}
          revoke={{ action: `${path(tenant)}/revoke-previous-secret`, csrf: c.get("session")!.csrf }}
        />
        <p class="actions">
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
        <RateLimitFacts limits={limits} />
        <h2>Edit</h2>
        <form method="post" action={path(tenant)} class="stack" id="edit">
          <Csrf token={c.get("session")!.csrf} />
          <CommunityFields
            form={form}
            isNew={false}
            community={community}
            rotation={rotation}
            fault={faultOf(error)}
          />
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

  const notFound = (c: Context<ConsoleEnv>, error?: string) =>
    html(
      c,
      <Layout title="Community not found" {...layoutFrame(c, deps)} error={error}>
        <p>
          No community has that tenant id. <a href="/communities">All communities</a>
        </p>
      </Layout>,
      404,
    );

  const shared = { path, staleAfter, notFound, editPage, formOf };
  connectRoutes(app, deps, shared);
  reconcileRoutes(app, deps, shared);

  app.get("/communities/:tenantId", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    const draft = await takeDraft(c, deps);
    if (!draft) return editPage(c, community, formOf(community));
    const kept = draft.kind === "community-edit"
      ? { name: draftText(draft, "name"), baseUrl: draftText(draft, "baseUrl"), clientId: draftText(draft, "clientId") }
      : {};
    return editPage(c, community, { ...formOf(community), ...kept }, undefined, DRAFT_NOTICE);
  });

  app.post("/communities/:tenantId", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    const form = { ...await readForm(c), tenantId: community.tenantId };
    const error = validate(form, false);
    const keep = formToShowAgain(form);
    if (error) return editPage(c, community, keep, error);
    // A rotation is a check-and-set: a new secret typed into a form rendered before another rotation is refused
    // (the page answered is rendered from the state now, so it can be sent again); `apply` checks the rest.
    if (await secretChanged(communities, form, community)) {
      return editPage(c, community, keep, SECRET_CHANGED);
    }
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
    const apply = (current: Community) => applyForm(form, community, current, moved);
    try {
      if (await communities.update(community.tenantId, apply) === null) return notFound(c);
    } catch (err) {
      // Rendered from the record as it is now, so that the form answered can be sent again.
      const now = err instanceof ConflictError ? await communities.findByTenantID(community.tenantId) : null;
      return editPage(c, now ?? community, keep, describeError(err));
    }
    return c.redirect(`${path(community.tenantId)}?notice=saved`, 303);
  });

  // The address bar after a refused or confirmed action (or a bookmark): the community's page rather than a 404.
  app.get(
    "/communities/:tenantId/:action{(?:remove|revoke-previous-secret)}",
    (c) => c.redirect(path(c.req.param("tenantId")), 302),
  );

  // A secret that leaked: the previous one stops verifying now, not at the rotation's end.
  const ROTATED_AGAIN = "Nothing was refused: the secret was rotated again since that page was shown, and the " +
    "previous secret kept now is another one. Press the button below to refuse this one.";
  app.post("/communities/:tenantId/revoke-previous-secret", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c);
    const shown = (await c.req.parseBody()).rotatedAt;
    // Sent from a page shown before another rotation: its previous secret is not the one the operator saw there.
    const rotatedAt = typeof shown === "string" && shown !== "" ? shown : undefined;
    const revoked = await communities.revokePreviousSecret(community.tenantId, { rotatedAt });
    if (!revoked && rotatedAt && await communities.secretRotation(community.tenantId)) {
      return editPage(c, community, formOf(community), ROTATED_AGAIN);
    }
    return c.redirect(`${path(community.tenantId)}?notice=${revoked ? "secret-revoked" : "no-secret-to-revoke"}`, 303);
  });

  const gone = "Nothing was removed: no community has this tenant id now (removed already, by a second click or tab)";
  app.post("/communities/:tenantId/remove", async (c) => {
    const community = await communities.findByTenantID(c.req.param("tenantId"));
    if (!community) return notFound(c, gone);
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
    if (removed === false) return notFound(c, gone);
    return c.redirect("/communities?notice=removed", 303);
  });
}
