// A platform stand-in on 127.0.0.1 for the kill tests: it keeps hooks (POST,
// GET, PUT, DELETE under /api/core/v3/webhooks), checks bearer tokens, and
// renews them at /oauth2/token, each refresh token taken once (a platform that
// rotates them). `hold(name)` makes the next PUT or token renewal act, then
// keep its answer until `release()`, so a test can kill the console after the
// platform acted and before the console stored what it answered.

import { createWebhooks, type Webhook } from "../../webhooks/mod.ts";

/** What the stand-in holds back, by request. */
export type HeldRequest = "put" | "token";

/** The running stand-in. */
export interface HeldPlatform {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** The hooks as the platform has them, by id. */
  hooks: Map<string, Record<string, unknown>>;
  /** Access tokens the platform takes now. */
  access: Set<string>;
  /** Refresh tokens not spent yet. */
  refresh: Set<string>;
  /** Access tokens refused from now on (as if expired): the next call with one answers 401. */
  expire(token: string): void;
  /** Holds the answer of the next request of this kind; resolves once the platform acted on it. */
  hold(name: HeldRequest): Promise<void>;
  /** Lets held answers go. */
  release(): void;
  /** How many requests of each kind came in. */
  counts: Record<string, number>;
  close(): Promise<void>;
}

/** Starts the stand-in with one access token and one refresh token. */
export function startHeldPlatform(accessToken: string, refreshToken: string): HeldPlatform {
  const hooks = new Map<string, Record<string, unknown>>();
  const access = new Set([accessToken]);
  const refresh = new Set([refreshToken]);
  const counts: Record<string, number> = {};
  const holds = new Map<HeldRequest, () => void>();
  let released = Promise.withResolvers<void>();
  let issued = 0;
  let base = "";
  const held = async (name: HeldRequest) => {
    const acted = holds.get(name);
    if (!acted) return;
    holds.delete(name);
    acted();
    await released.promise;
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const kind = `${req.method} ${url.pathname.replace(/\/\d+$/, "/:id")}`;
    counts[kind] = (counts[kind] ?? 0) + 1;
    if (req.method === "POST" && url.pathname === "/oauth2/token") {
      const form = new URLSearchParams(await req.text());
      const spent = form.get("refresh_token") ?? "";
      if (!refresh.delete(spent)) return Response.json({ error: "invalid_grant" }, { status: 400 });
      issued++;
      const pair = { access_token: `access-${issued}-secret`, refresh_token: `refresh-${issued}-secret` };
      access.add(pair.access_token);
      refresh.add(pair.refresh_token);
      await held("token");
      return Response.json({ ...pair, expires_in: 3600, token_type: "bearer" });
    }
    const token = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    if (!access.has(token)) return Response.json({ error: { status: 401, message: "expired" } }, { status: 401 });
    const id = /^\/api\/core\/v3\/webhooks\/(\d+)$/.exec(url.pathname)?.[1];
    if (req.method === "POST" && url.pathname === "/api/core/v3/webhooks") {
      const newId = String(hooks.size + 1);
      const entity = {
        id: newId,
        ...await req.json(),
        enabled: true,
        resources: { self: { ref: `${base}/api/core/v3/webhooks/${newId}` } },
      };
      hooks.set(newId, entity);
      return Response.json(entity, { status: 201 });
    }
    if (req.method === "GET" && url.pathname === "/api/core/v3/webhooks") {
      return Response.json({ list: [...hooks.values()] });
    }
    if (id === undefined || !hooks.has(id)) return new Response("not found", { status: 404 });
    if (req.method === "GET") return Response.json(hooks.get(id));
    if (req.method === "DELETE") {
      hooks.delete(id);
      return new Response(null, { status: 204 });
    }
    if (req.method === "PUT") {
      const entity = { ...hooks.get(id)!, ...await req.json() };
      if (entity.object === undefined) delete entity.object;
      hooks.set(id, entity);
      await held("put");
      return Response.json(entity);
    }
    return new Response("not found", { status: 404 });
  });
  base = `http://127.0.0.1:${server.addr.port}`;
  return {
    base,
    hooks,
    access,
    refresh,
    counts,
    expire: (token) => void access.delete(token),
    hold(name) {
      const acted = Promise.withResolvers<void>();
      holds.set(name, acted.resolve);
      return acted.promise;
    },
    release() {
      released.resolve();
      released = Promise.withResolvers<void>();
    },
    async close() {
      released.resolve();
      await server.shutdown();
    },
  };
}

/**
 * Stores the community "Held" (tenant `held`) of `platform` in the KV file at `kvPath`, with its first token pair, and
 * registers one hook on it; resolves with that hook's record.
 */
export async function seedHeldHook(kvPath: string, platform: HeldPlatform): Promise<Webhook> {
  const kv = await Deno.openKv(kvPath);
  try {
    const webhooks = createWebhooks(kv);
    await webhooks.communities.save({
      name: "Held",
      tenantId: "held",
      baseUrl: platform.base,
      clientId: "client-id",
      clientSecret: "client-secret-value",
      oauth: { access_token: "first-access-secret", refresh_token: "first-refresh-secret" },
    });
    await webhooks.register({ community: "Held", events: ["user_account"], callback: "https://me.example/hook" });
    return (await webhooks.findByTenantID("held"))[0];
  } finally {
    kv.close();
  }
}
