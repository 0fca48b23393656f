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

/** A community removed while its Connect exchanged the code (another tab). */
const REMOVED_MEANWHILE = "Not connected: the community was removed while it was being connected";

/** A community moved (base URL or client id) while its Connect exchanged the code. */
const PROVIDER_CHANGED = "Not connected: the community's base URL or client id changed while it was being connected, " +
  "so the tokens answered are not for it. Connect it again";

/** Ends the update of a community whose provider changed while its Connect exchanged the code; holds it as it is. */
class ProviderChanged extends Error {
  constructor(readonly now: Community) {
    super("The community's provider changed");
  }
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
    let tokens;
    try {
      tokens = await exchangeCode(
        provider,
        new URL(c.req.url),
        deps.publicUrl + COMMUNITY_CALLBACK_PATH,
        pending,
        deps.fetch,
      );
    } catch (err) {
      return editPage(
        c,
        community,
        formOf(community),
        `Connecting failed. ${describeOAuthError(err)}`,
      );
    }
    // Stored on the record as it is now, not as read before the exchange: a Remove or an edit saved meanwhile (another
    // tab) stands. Only while it has the token endpoint and client the tokens came from: never one address's tokens
    // kept for another, where every platform call would send them.
    const sameProvider = (current: Community) => {
      const now = communityProvider(browserFacing(deps, current));
      return now?.tokenEndpoint === provider.tokenEndpoint && now.clientId === provider.clientId;
    };
    let saved;
    try {
      saved = await communities.update(community.tenantId, (current) => {
        if (!sameProvider(current)) throw new ProviderChanged(current);
        return { ...current, oauth: tokens, renewedAt: new Date().toISOString() };
      });
    } catch (err) {
      // As before the exchange's failures: the page of the community, saying why (a record too large, the KV down).
      const now = err instanceof ProviderChanged ? err.now : community;
      const why = err instanceof ProviderChanged ? PROVIDER_CHANGED : `Connecting failed. ${describeOAuthError(err)}`;
      return editPage(c, now, formOf(now), why);
    }
    if (saved === null) return notFound(c, REMOVED_MEANWHILE);
    return c.redirect(`${pending.returnTo}?notice=connected`, 303);
  });
}
