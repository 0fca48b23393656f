/**
 * Connecting a community through its OAuth: the start (PKCE, state cookie)
 * and the callback that stores the tokens. A sandbox community stored by
 * another console on this KV is reached through this console's sandbox.
 *
 * @module
 */

import type { Hono } from "hono";
import type { Community } from "../../webhooks/mod.ts";
import type { ConsoleEnv, Deps } from "../lib/context.ts";
import { communityProvider, describeOAuthError, exchangeCode } from "../lib/oauth.ts";
import { COMMUNITY_CALLBACK_PATH } from "../lib/sandbox_connect.ts";
import { startAuthorization, takeAuthorization } from "./auth.tsx";
import type { CommunityShared } from "./reconcile.tsx";

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

/** Adds the connect routes to `app`. */
export function connectRoutes(app: Hono<ConsoleEnv>, deps: Deps, shared: CommunityShared): void {
  const communities = deps.webhooks.communities;
  const { path, notFound, editPage, formOf } = shared;
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
    const pending = await takeAuthorization(c, deps);
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
}
