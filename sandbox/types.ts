/**
 * The sandbox's public types and constants: its options, the community and
 * OAuth client records it hands out, the trigger's options and summary, and
 * the `Sandbox` itself.
 *
 * @module
 */

export type { Delivery } from "./_trigger.ts";
import { type Delivery, SANDBOX_USER_NAME, SANDBOX_USER_SUB } from "./_trigger.ts";
import type { Hono } from "hono";

/** The sandbox community's fixed name and tenant id. */
export const SANDBOX_COMMUNITY: {
  readonly name: "Sandbox";
  readonly tenantId: "sandbox-tenant";
} = Object.freeze({ name: "Sandbox", tenantId: "sandbox-tenant" } as const);

/** The one user of the sandbox, as userinfo reports it. */
export const SANDBOX_USER: {
  readonly sub: "sandbox-user";
  readonly name: "Sandbox User";
} = Object.freeze({ sub: SANDBOX_USER_SUB, name: SANDBOX_USER_NAME } as const);

/** The line the platform puts before every JSON body of its REST API. */
export const ANTI_HIJACKING_PREFIX = "throw 'allowIllegalResourceCall is false.';\n";

/** Default mount point. */
export const DEFAULT_BASE_PATH = "/sandbox";
/** Default path of the community client's redirect URI under a console's origin: the console's connect callback. */
export const DEFAULT_COMMUNITY_REDIRECT_PATH = "/auth/community/callback";
/** Default path of the console client's redirect URI under a console's origin: the console's sign-in callback. */
export const DEFAULT_CONSOLE_REDIRECT_PATH = "/auth/callback";
/** Default access token lifetime, in seconds. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** Default `count` of a webhook list page. */
export const DEFAULT_PAGE_COUNT = 25;
/** Largest `count` of a list page; larger values are capped, like the platform. */
export const MAX_PAGE_COUNT = 100;

/** Options of {@linkcode createSandbox}. */
export interface SandboxOptions {
  /** Where all sandbox state lives, under keys starting with `"sandbox"`. */
  kv: Deno.Kv;
  /** Where the console mounts the app; default `"/sandbox"`. */
  basePath?: string;
  /** Access token lifetime in seconds; default 3600. */
  tokenTtlSeconds?: number;
  /**
   * Refresh token lifetime in seconds, by the sandbox's clock (`now`); default 2,592,000 (30 days). A refresh
   * gives a new pair, its refresh token living this long again.
   */
  refreshTokenTtlSeconds?: number;
  /** The fetch used for postbacks; default the global `fetch`. */
  fetch?: typeof fetch;
  /** The clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /**
   * The community's OAuth client, when it must be a known one (tests); by
   * default one is made up once and kept in KV.
   */
  communityClient?: { clientId: string; clientSecret: string };
  /**
   * Where the community's app (the console) takes the browser back after
   * consent, under its origin; default `"/auth/community/callback"`. Each
   * `communityFor(origin)` registers `{origin}{communityRedirectPath}` as a
   * redirect URI of the community's client, and the authorization endpoint
   * refuses any other with 400.
   */
  communityRedirectPath?: string;
  /**
   * Where the console's sign-in client is taken back after consent, under a
   * console's origin; default `"/auth/callback"`. Each `oauthClientFor(origin)`
   * registers `{origin}{consoleRedirectPath}` as a redirect URI of the
   * console's client, and the authorization endpoint refuses any other with
   * 400, whatever origin the request came to.
   */
  consoleRedirectPath?: string;
  /** Faults to inject, for tests; read on every request, so a test may change them while the sandbox serves. */
  faults?: SandboxFaults;
}

/**
 * What a test makes the sandbox do beside its normal answers: answer 500,
 * hang, drop the anti-hijacking line, stop after creating a hook. Every hook
 * is optional and read on every request.
 */
export interface SandboxFaults {
  /** Runs first on every request (a clone of it): a `Response` returned is the answer, and the sandbox does nothing. */
  before?: (request: Request) => Response | undefined | Promise<Response | undefined>;
  /** Runs on every answer the sandbox gave: what it returns is sent instead. */
  after?: (request: Request, response: Response) => Response | Promise<Response>;
  /** Runs after a webhook was created and stored, before the answer is sent. */
  afterCreate?: (entity: Record<string, unknown>) => void | Promise<void>;
}

/** The fields of a webhook made by {@linkcode Sandbox.createHook}. */
export interface SandboxHookFields {
  /** Event names. */
  events: string[];
  /** The place URI of content events. */
  object?: string;
  /** The callback URL. */
  callback: string;
  /** Default `true`. */
  enabled?: boolean;
}

/** The community record to save through Module A's `communities.save`. */
export interface SandboxCommunityRecord {
  /** `"Sandbox"`. */
  name: string;
  /** `"sandbox-tenant"`. */
  tenantId: string;
  /** `{origin}{basePath}`, the community's address. */
  baseUrl: string;
  /** The community's OAuth client id. */
  clientId: string;
  /** The community's client secret: base64 ending in `.s`, as the platform's. */
  clientSecret: string;
}

/**
 * The console's own sign-in client at the sandbox. The first six fields
 * have the shape of the console's `OAuthProvider`.
 */
export interface SandboxOAuthClient {
  /** `{origin}{basePath}/oauth2/authorize`. */
  authorizationEndpoint: string;
  /** `{origin}{basePath}/oauth2/token`. */
  tokenEndpoint: string;
  /** `{origin}{basePath}/oauth2/userinfo`. */
  userinfoEndpoint: string;
  /** `"sandbox-console"`. */
  clientId: string;
  /** Generated once, kept in KV. */
  clientSecret: string;
  /** The scope granted when none is asked for: `"sandbox"`. */
  scope: string;
  /** `{origin}{basePath}`; no `iss` parameter is sent back. */
  issuer: string;
  /**
   * The redirect URI registered for this client by this call,
   * `{origin}{consoleRedirectPath}`. The sandbox accepts a registered one
   * only, exactly (with those of other consoles on its KV).
   */
  redirectUris: string[];
  /** The same endpoints as oauth4webapi's `AuthorizationServer`. */
  authorizationServer: SandboxAuthorizationServer;
}

/**
 * Authorization server metadata, assignable to oauth4webapi's
 * `AuthorizationServer`.
 */
export type SandboxAuthorizationServer = {
  /** `{origin}{basePath}`. */
  issuer: string;
  /** The consent page. */
  authorization_endpoint: string;
  /** The token endpoint. */
  token_endpoint: string;
  /** The userinfo endpoint. */
  userinfo_endpoint: string;
  /** `["S256"]`. */
  code_challenge_methods_supported: string[];
};

/** What to trigger; every field optional. */
export interface TriggerOptions {
  /** Only this hook (by its platform id). */
  webhookId?: string;
  /** Only hooks subscribed to this event, which is what they receive. */
  event?: string;
  /** The activity's verb, such as `jive:modified`; default by event. */
  verb?: string;
}

/** Which postback to send again: its hook and the timestamp of its signature. */
export interface RedeliverOptions {
  /** The hook's platform id. */
  webhookId: string;
  /** The `timestamp` of the postback's `Authorization` header, in ms (every receiver's log keeps it). */
  timestamp: number;
}

/** The answer of `POST /trigger` and of {@linkcode Sandbox.trigger}. */
export interface TriggerSummary {
  /** One entry per postback sent. */
  delivered: Delivery[];
}

/** A sandbox community, made by {@linkcode createSandbox}. */
export interface Sandbox {
  /** The routes, relative: mount with `app.route("/sandbox", sandbox.app)`. */
  readonly app: Hono;
  /** The mount point given (default `"/sandbox"`). */
  readonly basePath: string;
  /**
   * The community record for Module A's `communities.save`; registers
   * `{origin}{communityRedirectPath}` as a redirect URI of the community's
   * client (kept in KV), the only kind the authorization endpoint accepts
   * for that client.
   *
   * @param origin The console's origin, such as `http://localhost:8000`.
   */
  communityFor(origin: string): Promise<SandboxCommunityRecord>;
  /**
   * The console's sign-in client at the sandbox; registers
   * `{origin}{consoleRedirectPath}` as its redirect URI (kept in KV), the
   * only kind the authorization endpoint accepts for that client.
   *
   * @param origin The console's origin.
   */
  oauthClientFor(origin: string): Promise<SandboxOAuthClient>;
  /**
   * The sandbox's OAuth endpoints, for oauth4webapi.
   *
   * @param origin The console's origin.
   */
  authorizationServerFor(origin: string): SandboxAuthorizationServer;
  /**
   * The URI of the sandbox's sample place, for `object` of content hooks.
   *
   * @param origin The console's origin.
   */
  placeFor(origin: string): string;
  /** Makes every access token issued so far expired; resolves with how many. */
  expireTokens(): Promise<number>;
  /**
   * Issues tokens of the sandbox community to its community client, as a
   * connect through OAuth would; given values are used as they are (tests).
   *
   * @param tokens The access and refresh token to issue; random when absent.
   */
  issueTokens(tokens?: { accessToken?: string; refreshToken?: string }): Promise<{
    accessToken: string;
    refreshToken: string;
  }>;
  /**
   * Revokes an access token; resolves with whether it was known.
   *
   * @param accessToken The token.
   */
  revokeToken(accessToken: string): Promise<boolean>;
  /** The sandbox community's webhooks as the REST API shows them, oldest first. */
  listHooks(): Promise<Record<string, unknown>[]>;
  /**
   * Creates a webhook as another client of the platform would.
   *
   * @param origin The origin its self URL is under.
   * @param fields Its events, object and callback.
   */
  createHook(origin: string, fields: SandboxHookFields): Promise<Record<string, unknown>>;
  /**
   * Deletes a webhook by its platform id, as someone deleting it by hand
   * would; resolves with whether there was one.
   *
   * @param id The platform id.
   */
  deleteHook(id: string): Promise<boolean>;
  /**
   * Sends postbacks to the registered hooks, like `POST /trigger`.
   *
   * @param options Which hook, event and verb.
   */
  trigger(options?: TriggerOptions): Promise<TriggerSummary>;
  /**
   * Sends a postback it sent before (kept 3 days, failed or not) again to
   * its hook's current callback: the same body, signed anew. Like
   * `POST /redeliver`.
   *
   * @param options The hook and the timestamp of the first postback's signature.
   * @returns How the new postback went (its own `timestamp`).
   * @throws {RangeError} when the hook or the postback is not known (any more)
   * @throws {TypeError} when the options are not valid, or the hook is disabled
   */
  redeliver(options: RedeliverOptions): Promise<Delivery>;
}
