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
import type { Sandbox } from "../sandbox/mod.ts";
import { authorizationUrl, communityProvider, exchangeCode, newAuthorizationSecrets } from "./oauth.ts";

/** The path a community's OAuth sends the browser back to. */
export const COMMUNITY_CALLBACK_PATH = "/auth/community/callback";

/**
 * A fetch that sends requests for `{publicUrl}{basePath}/...` to the
 * sandbox's app in-process and everything else to `fallback`.
 */
export function sandboxFetch(
  sandbox: Sandbox,
  publicUrl: string,
  fallback: typeof fetch,
): typeof fetch {
  const prefix = `${publicUrl}${sandbox.basePath}/`;
  return (input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(prefix)) return fallback(request);
    const url = new URL(request.url);
    url.pathname = url.pathname.slice(sandbox.basePath.length);
    return Promise.resolve(sandbox.app.fetch(new Request(url, request)));
  };
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
  const fetchFn = sandboxFetch(sandbox, publicUrl, () => Promise.reject(new Error("Not a sandbox URL")));
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
