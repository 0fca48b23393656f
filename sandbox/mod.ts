/**
 * The sandbox community: a built-in emulator of the community platform
 * (Jive REST API v3 webhooks, its OAuth 2.0 server, signed postbacks) that
 * the console serves under `/sandbox`, so that a newcomer can sign in,
 * register a hook, trigger an event and watch the postback arrive on one
 * machine. Tests use it as the platform too.
 *
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hono } from "hono";
 * import { createSandbox } from "./mod.ts";
 *
 * const kv = await Deno.openKv(":memory:");
 * try {
 *   const sandbox = createSandbox({ kv });
 *   const app = new Hono();
 *   app.route("/sandbox", sandbox.app);
 *   const client = await sandbox.oauthClientFor("http://localhost:8000");
 *   assert.equal(
 *     client.tokenEndpoint,
 *     "http://localhost:8000/sandbox/oauth2/token",
 *   );
 * } finally {
 *   kv.close();
 * }
 * ```
 *
 * @module
 */

export {
  ANTI_HIJACKING_PREFIX,
  createSandbox,
  DEFAULT_BASE_PATH,
  DEFAULT_COMMUNITY_REDIRECT_PATH,
  DEFAULT_CONSOLE_REDIRECT_PATH,
  DEFAULT_PAGE_COUNT,
  DEFAULT_TOKEN_TTL_SECONDS,
  MAX_PAGE_COUNT,
  SANDBOX_COMMUNITY,
  SANDBOX_KV_PREFIX,
  SANDBOX_USER,
} from "./sandbox.ts";
export { sandboxTooManyRequests } from "./too_many_requests.ts";
export { type CatalogEvent, eventCatalog, examplePostback } from "./catalog.ts";
export type {
  Delivery,
  RedeliverOptions,
  Sandbox,
  SandboxAuthorizationServer,
  SandboxCommunityRecord,
  SandboxFaults,
  SandboxHookFields,
  SandboxOAuthClient,
  SandboxOptions,
  TriggerOptions,
  TriggerSummary,
} from "./sandbox.ts";
