// The platform of the Module A tests: the sandbox (the project's one platform
// emulator, sandbox/mod.ts) served by a real HTTP server on 127.0.0.1, with
// tokens the tests know, a log of the requests it received, and its fault
// hooks (answer otherwise, stop after a create, drop the anti-hijacking
// line, 403 for a bad token).

import { Hono } from "hono";
import { ANTI_HIJACKING_PREFIX, createSandbox, type Sandbox } from "../../sandbox/mod.ts";
import { type Community, createWebhooks, type Webhooks } from "../../webhooks/mod.ts";

export const HIJACK = ANTI_HIJACKING_PREFIX;

/** The platform id of the first hook created on a fresh platform. */
export const FIRST_HOOK_ID = "1001";

/** One request the platform received (its path relative to the platform's URL). */
export interface Seen {
  method: string;
  path: string;
  search: string;
  authorization: string | null;
  contentType: string | null;
  body: string;
}

/** Options of {@linkcode startPlatform}. */
export interface PlatformOptions {
  /** Prefix JSON answers with the anti-hijacking line (default true). */
  prefix?: boolean;
  /** Access tokens accepted from the start (default `["good-token"]`). */
  tokens?: string[];
  /** Refresh tokens accepted from the start (default `["good-refresh"]`). */
  refreshTokens?: string[];
  /** The community's OAuth client (default `client-1` / `secret-1`). */
  clientId?: string;
  clientSecret?: string;
  /** Answers 403 instead of 401 for a bad token. */
  forbidWith403?: boolean;
}

/** The running platform. */
export interface Platform {
  /** The community's base URL (the sandbox's mount point on this server). */
  readonly url: string;
  readonly seen: Seen[];
  /** Tokens the refresh grant handed out, in order. */
  readonly issued: { access_token: string; refresh_token: string }[];
  readonly sandbox: Sandbox;
  /** Replace an answer: return a Response to send it instead of the sandbox's. */
  override?: (req: Request, url: URL) => Response | undefined | Promise<Response | undefined>;
  /** Called after a hook was created, before the answer is sent. */
  afterCreate?: (entity: Record<string, unknown>) => void | Promise<void>;
  /** Called after the platform handled a request (and changed its state), before its answer is sent. */
  beforeAnswer?: (req: Request, url: URL) => void | Promise<void>;
  /** The hooks on the platform, oldest first. */
  listHooks(): Promise<Record<string, unknown>[]>;
  /** A hook by its platform id, or `undefined`. */
  hook(id: string): Promise<Record<string, unknown> | undefined>;
  /** Adds a hook directly, as if made by another client. */
  addHook(fields: { events: string[]; object?: string; callback: string }): Promise<Record<string, unknown>>;
  /** Deletes a hook by hand, as an administrator on the platform would. */
  removeHook(id: string): Promise<boolean>;
  /** Makes an access token invalid. */
  revokeToken(token: string): Promise<void>;
  requests(method: string, pathPrefix?: string): Seen[];
  close(): Promise<void>;
}

/** The sandbox's mount point on the platform's server. */
const BASE_PATH = "/platform";

export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const kv = await Deno.openKv(":memory:");
  const seen: Seen[] = [];
  const issued: { access_token: string; refresh_token: string }[] = [];
  const pathOf = (url: URL) => url.pathname.slice(BASE_PATH.length) || "/";
  const platform: Platform = {} as Platform;
  const sandbox = createSandbox({
    kv,
    basePath: BASE_PATH,
    communityClient: { clientId: options.clientId ?? "client-1", clientSecret: options.clientSecret ?? "secret-1" },
    faults: {
      async before(req) {
        const url = new URL(req.url);
        seen.push({
          method: req.method,
          path: pathOf(url),
          search: url.search,
          authorization: req.headers.get("authorization"),
          contentType: req.headers.get("content-type"),
          body: await req.clone().text(),
        });
        return await platform.override?.(req, new URL(pathOf(url) + url.search, url.origin));
      },
      async after(req, res) {
        const path = pathOf(new URL(req.url));
        await platform.beforeAnswer?.(req, new URL(path + new URL(req.url).search, new URL(req.url).origin));
        if (path === "/oauth2/token" && res.status === 200) {
          const { access_token, refresh_token } = await res.clone().json();
          issued.push({ access_token, refresh_token });
        }
        res = new Response(res.body, { status: res.status, headers: res.headers });
        res.headers.set("X-Platform", "sandbox");
        if (options.forbidWith403 && res.status === 401 && path.startsWith("/api/")) {
          return new Response(res.body, { status: 403, headers: res.headers });
        }
        if (options.prefix === false && (res.headers.get("content-type") ?? "").includes("json")) {
          const text = await res.text();
          const headers = new Headers(res.headers);
          headers.delete("content-length");
          return new Response(text.startsWith(HIJACK) ? text.slice(HIJACK.length) : text, {
            status: res.status,
            headers,
          });
        }
        return res;
      },
      afterCreate: (entity) => platform.afterCreate?.(entity),
    },
  });
  const refreshTokens = options.refreshTokens ?? ["good-refresh"];
  const tokens = options.tokens ?? ["good-token"];
  try {
    for (let i = 0; i < Math.max(tokens.length, refreshTokens.length); i++) {
      await sandbox.issueTokens({ accessToken: tokens[i], refreshToken: refreshTokens[i] });
    }
  } catch (error) {
    kv.close();
    throw error;
  }
  const app = new Hono();
  app.route(BASE_PATH, sandbox.app);
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen() {} },
    (req) => app.fetch(req),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return Object.assign(platform, {
    url: origin + BASE_PATH,
    seen,
    issued,
    sandbox,
    listHooks: () => sandbox.listHooks(),
    async hook(id: string) {
      return (await sandbox.listHooks()).find((hook) => hook.id === id);
    },
    addHook: (fields: { events: string[]; object?: string; callback: string }) => sandbox.createHook(origin, fields),
    removeHook: (id: string) => sandbox.deleteHook(id),
    async revokeToken(token: string) {
      await sandbox.revokeToken(token);
    },
    requests(method: string, pathPrefix = "") {
      return seen.filter((s) => s.method === method && s.path.startsWith(pathPrefix));
    },
    async close() {
      controller.abort();
      await server.finished;
      kv.close();
    },
  });
}

/** A community record pointing at the platform. */
export function communityOf(platform: Platform, fields: Record<string, unknown> = {}) {
  return {
    name: "Acme",
    tenantId: "tenant-acme",
    baseUrl: platform.url,
    clientId: "client-1",
    clientSecret: "secret-1",
    oauth: { access_token: "good-token", refresh_token: "good-refresh" },
    ...fields,
  };
}

/** The community record whose access token the platform refuses (expired) and whose refresh token it takes. */
export function expiredCommunityOf(platform: Platform) {
  return communityOf(platform, { oauth: { access_token: "expired", refresh_token: "good-refresh" } });
}

/** How many requests to the platform's API carried the access token of {@linkcode expiredCommunityOf} (refused). */
export function expiredRefusals(platform: Platform): number {
  return platform.seen.filter((s) => s.path.startsWith("/api/") && s.authorization === "Bearer expired").length;
}

/** Holds the token endpoint until `count` API requests were refused with the expired token (5 s at most). */
export function tokenEndpointAfterRefusals(platform: Platform, count: number): void {
  platform.override = async (req, url) => {
    if (req.method !== "POST" || url.pathname !== "/oauth2/token") return undefined;
    const end = Date.now() + 5_000;
    while (expiredRefusals(platform) < count && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return undefined;
  };
}

/** Resolves once `check` holds, polling every 20 ms; rejects naming `what` after `ms`. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `fn` with a fresh in-memory KV, closed afterwards. */
export async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

/** Runs `fn` with a fresh in-memory KV and a platform, closing both. */
export async function withPlatform(
  fn: (kv: Deno.Kv, platform: Platform) => Promise<void>,
  options?: PlatformOptions,
): Promise<void> {
  const platform = await startPlatform(options);
  let kv: Deno.Kv | undefined;
  try {
    kv = await Deno.openKv(":memory:");
    await fn(kv, platform);
  } finally {
    await platform.close();
    kv?.close();
  }
}

/** Runs `fn` with a fresh in-memory KV, a platform and its community saved in a `createWebhooks` store, closing all. */
export async function withCommunity(
  fn: (hooks: Webhooks, platform: Platform, community: Community, kv: Deno.Kv) => Promise<void>,
): Promise<void> {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    const community: Community = communityOf(platform);
    await hooks.communities.save(community);
    await fn(hooks, platform, community, kv);
  });
}

/** Every key under a prefix, for checks on what was stored. */
export async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}
