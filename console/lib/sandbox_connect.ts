/**
 * Pre-connects the sandbox community: so that a newcomer can register a
 * hook right after signing in, the console runs the community's OAuth flow
 * against its own in-process sandbox at start (the sandbox's one user
 * approves; PKCE and the code exchange are the real ones) and stores the
 * tokens, as "Connect through the community's OAuth" would. Requests go to
 * the sandbox's Hono app directly, so no network is needed.
 *
 * @module
 */

import type { Communities, Community } from "../../webhooks/mod.ts";
import type { Sandbox } from "../../sandbox/mod.ts";
import { authorizationUrl, communityProvider, exchangeCode, newAuthorizationSecrets } from "./oauth.ts";

/** The path a community's OAuth sends the browser back to. */
export const COMMUNITY_CALLBACK_PATH = "/auth/community/callback";

/**
 * A fetch that sends requests under any of `bases` (base URLs of the
 * sandbox community that another console on the same KV stored) to this
 * console's in-process sandbox, and everything else to `fallback`. The
 * sandbox keeps its state in the shared KV, so any console's sandbox can
 * answer for it: a console never depends on another one staying up.
 */
export function sandboxAliasFetch(sandbox: Sandbox, bases: Set<string>, fallback: typeof fetch): typeof fetch {
  return (input, init) => {
    if (bases.size === 0) return fallback(input, init);
    const request = new Request(input, init);
    for (const base of bases) {
      if (!request.url.startsWith(`${base}/`)) continue;
      const url = new URL(request.url);
      url.pathname = url.pathname.slice(new URL(base).pathname.length);
      return Promise.resolve(sandbox.app.fetch(new Request(url, request)));
    }
    return fallback(request);
  };
}

/** Whether a console answers at `origin` (its `/healthz`, within 1 s). */
async function consoleAnswers(origin: string, fetchFn: typeof fetch): Promise<boolean> {
  try {
    const res = await fetchFn(new URL("/healthz", origin), { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Saves the sandbox community at start when absent. When the stored one
 * points at another address: if a console still answers there (a second
 * console on the same KV), the record is left alone and its base URL is
 * returned as an alias this console serves in-process; else (the console
 * moved) the record is pointed at this console, keeping its tokens.
 *
 * @returns the stored community, and the base URL to serve in-process, if any
 */
export async function settleSandboxCommunity(
  sandbox: Sandbox,
  communities: Communities,
  publicUrl: string,
  fetchFn: typeof fetch,
): Promise<{ stored: Community; alias?: string }> {
  const fresh = await sandbox.communityFor(publicUrl);
  const stored = await communities.findByTenantID(fresh.tenantId);
  if (!stored) {
    await communities.save({ ...fresh });
    return { stored: { ...fresh } };
  }
  const sameClient = stored.clientId === fresh.clientId && stored.clientSecret === fresh.clientSecret;
  if (stored.baseUrl === fresh.baseUrl && sameClient) return { stored };
  if (sameClient && stored.baseUrl && await consoleAnswers(stored.baseUrl, fetchFn)) {
    return { stored, alias: stored.baseUrl };
  }
  const moved = { ...stored, ...fresh, name: stored.name };
  await communities.save(moved);
  return { stored: moved };
}

/**
 * Gets tokens for the sandbox community through its OAuth (approved by the
 * sandbox user) and stores them on the community record.
 *
 * @param sandbox the sandbox
 * @param community the stored sandbox community (with client id and secret)
 * @param communities Module A's community store
 * @param publicUrl the console's origin
 * @returns the community as stored
 * @throws {Error} when the sandbox refuses a step
 */
export async function preconnectSandbox(
  sandbox: Sandbox,
  community: Community,
  communities: Communities,
  publicUrl: string,
): Promise<Community> {
  const provider = communityProvider(community);
  if (!provider) throw new Error("The sandbox community has no client id");
  const bases = new Set([publicUrl + sandbox.basePath, community.baseUrl ?? ""].filter(Boolean));
  const fetchFn = sandboxAliasFetch(sandbox, bases, () => Promise.reject(new Error("Not a sandbox URL")));
  const redirectUri = publicUrl + COMMUNITY_CALLBACK_PATH;
  const secrets = newAuthorizationSecrets();
  const url = await authorizationUrl(provider, redirectUri, secrets);
  // The consent form posts back the authorization request's parameters.
  const form = new URLSearchParams(url.searchParams);
  form.set("decision", "approve");
  const consent = await fetchFn(provider.authorizationEndpoint, {
    method: "POST",
    headers: { origin: publicUrl, "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  await consent.body?.cancel();
  const location = consent.headers.get("location");
  if (consent.status < 300 || consent.status > 399 || !location) {
    throw new Error(`The sandbox's consent answered ${consent.status}`);
  }
  const tokens = await exchangeCode(provider, new URL(location, publicUrl), redirectUri, secrets, fetchFn);
  const connected: Community = { ...community, oauth: tokens, renewedAt: new Date().toISOString() };
  await communities.save(connected);
  return connected;
}
