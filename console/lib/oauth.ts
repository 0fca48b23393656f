/**
 * OAuth 2.0 authorization code flow with PKCE (S256) through oauth4webapi,
 * used for the console's sign-in and for connecting a community (its
 * `{baseUrl}/oauth2/authorize` and `{baseUrl}/oauth2/token`).
 *
 * @module
 */

import * as oauth from "oauth4webapi";
import { capped } from "./outbound.ts";
import { CallbackLinkError, UserSubjectError } from "./oauth_errors.ts";
import type { Community } from "../../webhooks/mod.ts";

export { describeOAuthError, providerBusy, tooManyRequestsMessage } from "./oauth_errors.ts";

/** An OAuth provider the console talks to. */
export interface OAuthProvider {
  /** Authorization endpoint (the consent page). */
  authorizationEndpoint: string;
  /** Token endpoint. */
  tokenEndpoint: string;
  /** Userinfo endpoint; without it the user is named after the token. */
  userinfoEndpoint?: string;
  /** The console's client id at this provider. */
  clientId: string;
  /** The client secret; absent for a public client. */
  clientSecret?: string;
  /** Scope to ask for. */
  scope?: string;
}

/** Tokens won at the end of an authorization. */
export interface TokenPair {
  /** Access token. */
  access_token: string;
  /** Refresh token ("" when the provider gave none). */
  refresh_token: string;
}

/** `{baseUrl}{path}`, a trailing slash of the base URL dropped (as Module A joins them). */
function platformUrl(community: Community, path: string): string {
  return (community.baseUrl ?? "").replace(/\/+$/, "") + path;
}

function server(p: OAuthProvider): oauth.AuthorizationServer {
  return {
    issuer: new URL(p.authorizationEndpoint).origin,
    authorization_endpoint: p.authorizationEndpoint,
    token_endpoint: p.tokenEndpoint,
    userinfo_endpoint: p.userinfoEndpoint,
  };
}

function clientAuth(p: OAuthProvider): oauth.ClientAuth {
  return p.clientSecret ? oauth.ClientSecretBasic(p.clientSecret) : oauth.None();
}

function requestOptions(
  fetchFn: typeof fetch,
): {
  [oauth.allowInsecureRequests]: boolean;
  [oauth.customFetch]: typeof fetch;
} {
  return {
    // Local providers (the sandbox, a dev instance) speak plain http.
    [oauth.allowInsecureRequests]: true,
    [oauth.customFetch]: async (input, init) => {
      const response = await fetchFn(input, init);
      return capped(response, MAX_ANSWER_BYTES, `The answer of ${hostOf(response.url || input)}`);
    },
  };
}

/** The host a call went to, for a message; "the provider" when its URL cannot be read. */
function hostOf(target: string | URL | Request): string {
  try {
    return new URL(target instanceof Request ? target.url : target).host;
  } catch {
    return "the provider";
  }
}

/**
 * Bytes of an OAuth answer read at most: a token or userinfo answer is a few hundred bytes, and its host may be one a
 * signed-in user named (a community's base URL), whose compressed answer could inflate to gigabytes.
 */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The OAuth client of a community on the platform: its authorization and token
 * endpoints under `{baseUrl}/oauth2/`, with its client id and secret.
 *
 * @param community the community
 * @returns the provider, or `null` when the community has no client id
 */
export function communityProvider(community: Community): OAuthProvider | null {
  if (!community.clientId) return null;
  return {
    // The same joining of base URL and path as Module A's (a trailing slash dropped).
    authorizationEndpoint: platformUrl(community, "/oauth2/authorize"),
    tokenEndpoint: platformUrl(community, "/oauth2/token"),
    clientId: community.clientId,
    clientSecret: community.clientSecret,
  };
}

/** A fresh PKCE verifier and `state`. */
export function newAuthorizationSecrets(): {
  codeVerifier: string;
  state: string;
} {
  return {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
  };
}

/**
 * Builds the URL of the provider's consent page.
 *
 * @param provider the provider
 * @param redirectUri where the provider sends the browser back
 * @param secrets the verifier and state of this authorization
 * @returns the authorization URL
 */
export async function authorizationUrl(
  provider: OAuthProvider,
  redirectUri: string,
  secrets: { codeVerifier: string; state: string },
): Promise<URL> {
  const url = new URL(provider.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("state", secrets.state);
  url.searchParams.set(
    "code_challenge",
    await oauth.calculatePKCECodeChallenge(secrets.codeVerifier),
  );
  url.searchParams.set("code_challenge_method", "S256");
  if (provider.scope) url.searchParams.set("scope", provider.scope);
  return url;
}

/**
 * Checks the callback parameters and exchanges the code for tokens.
 *
 * @param provider the provider
 * @param callbackUrl the URL the browser came back on
 * @param redirectUri the redirect URI sent in the authorization request
 * @param secrets the verifier and state of this authorization
 * @param fetchFn the fetch to reach the token endpoint with
 * @returns the token pair
 * @throws {Error} when the provider reports an error or the exchange fails
 */
export async function exchangeCode(
  provider: OAuthProvider,
  callbackUrl: URL,
  redirectUri: string,
  secrets: { codeVerifier: string; state: string },
  fetchFn: typeof fetch,
): Promise<TokenPair> {
  const as = server(provider);
  const client: oauth.Client = { client_id: provider.clientId };
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callbackUrl, secrets.state);
  } catch (error) {
    // The provider's own error (`?error=`) is its answer; the rest is the link back itself (edited, pasted twice).
    if (!(error instanceof oauth.OperationProcessingError)) throw error;
    throw new CallbackLinkError(error.message);
  }
  // The grant request takes the one code; one missing or given twice is the link's fault too, said as oauth4webapi says it.
  const codes = params.getAll("code");
  if (codes.length !== 1 || codes[0] === "") {
    throw new CallbackLinkError(
      codes.length > 1 ? '"code" parameter must be provided only once' : "no authorization code",
    );
  }
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth(provider),
    params,
    redirectUri,
    secrets.codeVerifier,
    requestOptions(fetchFn),
  );
  const result = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    response,
  );
  return {
    access_token: result.access_token,
    refresh_token: result.refresh_token ?? "",
  };
}

/** The longest `sub` taken (OpenID Connect Core 1.0, section 2): it keys the user's records in KV. */
const MAX_SUB_LENGTH = 255;

/**
 * Asks the provider's userinfo endpoint who holds the token.
 *
 * @param provider the provider
 * @param accessToken the access token
 * @param fetchFn the fetch to reach the endpoint with
 * @returns the user's `sub` and a display name
 */
export async function fetchUser(
  provider: OAuthProvider,
  accessToken: string,
  fetchFn: typeof fetch,
): Promise<{ sub: string; name: string }> {
  if (!provider.userinfoEndpoint) {
    return { sub: "user", name: "Signed-in user" };
  }
  const as = server(provider);
  const client: oauth.Client = { client_id: provider.clientId };
  const response = await oauth.userInfoRequest(
    as,
    client,
    accessToken,
    requestOptions(fetchFn),
  );
  const info = await oauth.processUserInfoResponse(
    as,
    client,
    oauth.skipSubjectCheck,
    response,
  );
  if (info.sub.length > MAX_SUB_LENGTH) {
    throw new UserSubjectError(`is longer than the ${MAX_SUB_LENGTH} characters OpenID Connect allows`);
  }
  const name = typeof info.name === "string"
    ? info.name
    : typeof info.preferred_username === "string"
    ? info.preferred_username
    : typeof info.email === "string"
    ? info.email
    : info.sub;
  return { sub: info.sub, name };
}
