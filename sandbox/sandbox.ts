/**
 * The sandbox community: an emulator of the community platform (Jive REST
 * API v3 webhooks, its OAuth 2.0 server and its signed postbacks) that the
 * console serves under `/sandbox`.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { ROOT } from "./_keys.ts";
import { SandboxStore } from "./_store.ts";
import { retryingLocks } from "./_kv_locked.ts";
import { apiRoutes, newHook } from "./_api.ts";
import { checkOptions, entityOf, originOf, PLACE_ID } from "./_http.ts";
import { authorizeRoutes } from "./_oauth.ts";
import { tokenRoutes } from "./_oauth_token.ts";
import { triggerRoutes } from "./_trigger_routes.ts";
import { redeliverRoutes } from "./_redeliver.ts";
import {
  type Delivery,
  type RedeliverOptions,
  type Sandbox,
  SANDBOX_COMMUNITY,
  SANDBOX_USER,
  type SandboxAuthorizationServer,
  type SandboxCommunityRecord,
  type SandboxHookFields,
  type SandboxOAuthClient,
  type SandboxOptions,
  type TriggerOptions,
  type TriggerSummary,
} from "./types.ts";

export * from "./types.ts";

export function createSandbox(options: SandboxOptions): Sandbox {
  const {
    kv: given,
    basePath,
    ttlSeconds,
    refreshTtlSeconds,
    fetchFn,
    now,
    communityRedirectPath,
    consoleRedirectPath,
  } = checkOptions(options);
  // A KV file shared by several consoles is locked at times by another's commit: the sandbox waits it out.
  const kv = retryingLocks(given);
  // Two postbacks of one tenant signed in the same millisecond would carry the
  // same header, and a replay-safe receiver delivers a header once: each
  // signature of this sandbox gets a timestamp of its own.
  let lastSigned = -Infinity;
  const signingNow = (): number => (lastSigned = Math.max(now(), lastSigned + 1));
  const faults = options.faults;
  if (faults !== undefined && (typeof faults !== "object" || faults === null)) {
    throw new TypeError("Cannot create sandbox: 'faults' must be an object");
  }
  const store = new SandboxStore(kv, options.communityClient, refreshTtlSeconds * 1000);
  const tenantId = SANDBOX_COMMUNITY.tenantId;
  const app = new Hono();

  const baseOf = (c: Context): string => new URL(c.req.url).origin + basePath;

  const authorizationServerFor = (origin: string): SandboxAuthorizationServer => {
    const base = originOf(origin, "the authorization server") + basePath;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth2/authorize`,
      token_endpoint: `${base}/oauth2/token`,
      userinfo_endpoint: `${base}/oauth2/userinfo`,
      code_challenge_methods_supported: ["S256"],
    };
  };

  const placeFor = (origin: string): string =>
    `${originOf(origin, "the place URI") + basePath}/api/core/v3/places/${PLACE_ID}`;

  if (faults) {
    // A test's faults come first, and see every answer last.
    app.use("*", async (c, next) => {
      // Cloned only for a `before` that reads it: a clone keeps the whole body in memory.
      const early = faults.before ? await faults.before(c.req.raw.clone()) : undefined;
      if (early) return early;
      await next();
      if (faults.after) c.res = await faults.after(c.req.raw, c.res);
    });
  }

  const core = {
    kv,
    faults,
    store,
    basePath,
    ttlSeconds,
    fetchFn,
    now,
    signingNow,
    tenantId,
    baseOf,
    authorizationServerFor,
    placeFor,
  };
  authorizeRoutes(app, core);
  const { authenticateBearer } = tokenRoutes(app, core);
  apiRoutes(app, core, authenticateBearer);
  const { runRedeliver } = redeliverRoutes(app, core);
  const { runTrigger } = triggerRoutes(app, core);

  return {
    app,
    basePath,
    async communityFor(origin: string): Promise<SandboxCommunityRecord> {
      const consoleOrigin = originOf(origin, "the community record");
      const base = consoleOrigin + basePath;
      const client = await store.client("community");
      await store.registerRedirectUri("community", consoleOrigin + communityRedirectPath);
      return {
        name: SANDBOX_COMMUNITY.name,
        tenantId: SANDBOX_COMMUNITY.tenantId,
        baseUrl: base,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
      };
    },
    async oauthClientFor(origin: string): Promise<SandboxOAuthClient> {
      const server = authorizationServerFor(origin);
      const client = await store.client("console");
      const redirectUri = originOf(origin, "the sign-in client") + consoleRedirectPath;
      await store.registerRedirectUri("console", redirectUri);
      return {
        authorizationEndpoint: server.authorization_endpoint,
        tokenEndpoint: server.token_endpoint,
        userinfoEndpoint: server.userinfo_endpoint,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        scope: "sandbox",
        issuer: server.issuer,
        redirectUris: [redirectUri],
        authorizationServer: server,
      };
    },
    authorizationServerFor,
    placeFor,
    expireTokens(): Promise<number> {
      return store.expireAccessTokens(now() - 1);
    },
    async issueTokens(given = {}) {
      const client = await store.client("community");
      const grant = { clientId: client.clientId, sub: SANDBOX_USER.sub, scope: "sandbox", tenantId };
      const tokens = await store.issueTokens(grant, now() + ttlSeconds * 1000, ttlSeconds * 1000, undefined, given);
      if (!tokens) throw new Error("Cannot issue sandbox tokens");
      return tokens;
    },
    revokeToken(accessToken: string): Promise<boolean> {
      return store.revokeAccess(accessToken);
    },
    async listHooks() {
      return (await store.allHooks(tenantId)).map((hook) => entityOf(hook));
    },
    async createHook(origin: string, fields: SandboxHookFields) {
      return await newHook(core, {
        events: fields.events,
        ...(fields.object === undefined ? {} : { object: fields.object }),
        callback: fields.callback,
        tenantId,
        baseUrl: originOf(origin, "the webhook") + basePath,
        enabled: fields.enabled ?? true,
      });
    },
    deleteHook(id: string): Promise<boolean> {
      return store.deleteHook(tenantId, id);
    },
    async trigger(options: TriggerOptions = {}): Promise<TriggerSummary> {
      const result = await runTrigger(options);
      if ("status" in result) {
        throw result.status === 404
          ? new RangeError(`Cannot trigger: ${result.message}`)
          : new TypeError(`Cannot trigger: ${result.message}`);
      }
      return result;
    },
    async redeliver(options: RedeliverOptions): Promise<Delivery> {
      const result = await runRedeliver(options);
      if ("message" in result) {
        throw result.status === 404
          ? new RangeError(`Cannot redeliver: ${result.message}`)
          : new TypeError(`Cannot redeliver: ${result.message}`);
      }
      return result;
    },
  };
}

/** Every sandbox KV key starts with this. */
export const SANDBOX_KV_PREFIX: readonly string[] = [ROOT];
