// A real HTTP server on 127.0.0.1 that plays the community platform for the
// Module A tests: webhooks API with the anti-hijacking prefix and paging,
// bearer tokens that can expire, the refresh grant, and knobs for failures.

export const HIJACK = "throw 'allowIllegalResourceCall is false.';\n";

/** One request the platform received. */
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
  /** Access tokens accepted from the start. */
  tokens?: string[];
  /** Refresh tokens accepted from the start. */
  refreshTokens?: string[];
  clientId?: string;
  clientSecret?: string;
  /** Answers 403 instead of 401 for a bad token. */
  forbidWith403?: boolean;
}

export interface FakePlatform {
  readonly url: string;
  readonly seen: Seen[];
  readonly hooks: Map<string, Record<string, unknown>>;
  readonly validTokens: Set<string>;
  readonly refreshTokens: Set<string>;
  /** Tokens the refresh grant handed out, in order. */
  readonly issued: { access_token: string; refresh_token: string }[];
  /** Replace an answer: return a Response to send it instead of the normal one. */
  override?: (req: Request, url: URL) => Response | undefined | Promise<Response | undefined>;
  /** Called after a hook was created, before the answer is sent. */
  afterCreate?: (entity: Record<string, unknown>) => void | Promise<void>;
  /** Adds a hook directly, as if made by another client. */
  addHook(fields: Record<string, unknown>): Record<string, unknown>;
  requests(method: string, pathPrefix?: string): Seen[];
  close(): Promise<void>;
}

export function startPlatform(options: PlatformOptions = {}): FakePlatform {
  const clientId = options.clientId ?? "client-1";
  const clientSecret = options.clientSecret ?? "secret-1";
  const prefix = options.prefix ?? true;
  let next = 1000;
  const controller = new AbortController();
  const state = {
    seen: [] as Seen[],
    hooks: new Map<string, Record<string, unknown>>(),
    validTokens: new Set(options.tokens ?? ["good-token"]),
    refreshTokens: new Set(options.refreshTokens ?? ["good-refresh"]),
    issued: [] as { access_token: string; refresh_token: string }[],
  };
  let base = "";

  function json(status: number, value: unknown): Response {
    return new Response((prefix ? HIJACK : "") + JSON.stringify(value), {
      status,
      headers: { "Content-Type": "application/json", "X-Platform": "fake" },
    });
  }
  function error(status: number, message: string): Response {
    return json(status, { error: { status, message } });
  }

  function makeHook(fields: Record<string, unknown>): Record<string, unknown> {
    const id = String(next++);
    const entity = {
      id,
      resources: { self: { ref: `${base}/api/core/v3/webhooks/${id}`, allowed: ["GET", "PUT", "DELETE"] } },
      enabled: true,
      buggy: false,
      ...fields,
    };
    state.hooks.set(id, entity);
    return entity;
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen() {},
  }, async (req) => {
    const url = new URL(req.url);
    const body = await req.text();
    state.seen.push({
      method: req.method,
      path: url.pathname,
      search: url.search,
      authorization: req.headers.get("authorization"),
      contentType: req.headers.get("content-type"),
      body,
    });
    const replaced = await platform.override?.(req, url);
    if (replaced) return replaced;

    if (url.pathname === "/oauth2/token" && req.method === "POST") {
      const expected = "Basic " + btoa(`${clientId}:${clientSecret}`);
      if (req.headers.get("authorization") !== expected) return json(401, { error: "invalid_client" });
      const form = new URLSearchParams(body);
      const refresh = form.get("refresh_token") ?? "";
      if (form.get("grant_type") !== "refresh_token" || !state.refreshTokens.has(refresh)) {
        return json(400, { error: "invalid_grant", error_description: "The refresh token is not valid" });
      }
      state.refreshTokens.delete(refresh);
      const n = state.issued.length + 1;
      const pair = { access_token: `renewed-access-${n}`, refresh_token: `renewed-refresh-${n}` };
      state.issued.push(pair);
      state.validTokens.add(pair.access_token);
      state.refreshTokens.add(pair.refresh_token);
      return json(200, { ...pair, token_type: "bearer", expires_in: 3600 });
    }

    const match = url.pathname.match(/^\/api\/core\/v3\/webhooks(?:\/([^/]+))?$/);
    if (!match) return error(404, "No such resource");
    const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    if (!state.validTokens.has(token)) {
      return options.forbidWith403 ? error(403, "Forbidden") : error(401, "Invalid or expired access token");
    }
    const id = match[1];
    if (id === undefined && req.method === "POST") {
      const { events, object, callback } = JSON.parse(body);
      const entity = makeHook({ events, object, callback });
      await platform.afterCreate?.(entity);
      return json(200, entity);
    }
    if (id === undefined && req.method === "GET") {
      const start = Number(url.searchParams.get("startIndex") ?? 0);
      const count = Number(url.searchParams.get("count") ?? 25);
      const all = [...state.hooks.values()];
      const list = all.slice(start, start + count);
      const links: Record<string, string> = {};
      if (start + count < all.length) {
        links.next = `${base}/api/core/v3/webhooks?startIndex=${start + count}&count=${count}`;
      }
      return json(200, { list, startIndex: start, itemsPerPage: count, links });
    }
    if (id !== undefined && req.method === "DELETE") {
      if (!state.hooks.delete(id)) return error(404, `No webhook ${id}`);
      return new Response(null, { status: 204 });
    }
    if (id !== undefined && req.method === "GET") {
      const hook = state.hooks.get(id);
      return hook ? json(200, hook) : error(404, `No webhook ${id}`);
    }
    return error(405, "Method not allowed");
  });
  base = `http://127.0.0.1:${server.addr.port}`;

  const platform: FakePlatform = {
    url: base,
    ...state,
    addHook: makeHook,
    requests(method, pathPrefix = "") {
      return state.seen.filter((s) => s.method === method && s.path.startsWith(pathPrefix));
    },
    async close() {
      controller.abort();
      await server.finished;
    },
  };
  return platform;
}

/** A community record pointing at the fake platform. */
export function communityOf(platform: FakePlatform, fields: Record<string, unknown> = {}) {
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

/** Runs `fn` with a fresh in-memory KV, closed afterwards. */
export async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

/** Runs `fn` with a fresh in-memory KV and a fake platform, closing both. */
export async function withPlatform(
  fn: (kv: Deno.Kv, platform: FakePlatform) => Promise<void>,
  options?: PlatformOptions,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const platform = startPlatform(options);
  try {
    await fn(kv, platform);
  } finally {
    await platform.close();
    kv.close();
  }
}

/** Every key under a prefix, for checks on what was stored. */
export async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}
