// The sandbox's REST API v3 for webhooks: create, list (paged), read and
// delete, answered as the platform does (anti-hijacking line, its errors).
import type { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { validateHookFields } from "./_events.ts";
import type { HookRecord } from "./_store.ts";
import type { SandboxCore } from "./_core.ts";
import { refuseOtherMethods } from "./_methods.ts";
import { entityOf, jiveError, jiveJson, MAX_BODY_BYTES, PLACE_ID } from "./_http.ts";
import { DEFAULT_PAGE_COUNT, MAX_PAGE_COUNT } from "./types.ts";

/** The longest origin (from the request's Host) a hook is registered under: with its URLs, it fits one KV value. */
const MAX_ORIGIN_CHARS = 8192;

/** Creates a webhook of `tenantId` as the platform does (stamped now); answers its entity. */
export async function newHook(
  core: Pick<SandboxCore, "store" | "now">,
  fields: Omit<HookRecord, "id" | "published" | "updated">,
): Promise<Record<string, unknown>> {
  const stamp = new Date(core.now()).toISOString();
  return entityOf(await core.store.createHook({ ...fields, published: stamp, updated: stamp }));
}

export function apiRoutes(
  app: Hono,
  core: SandboxCore,
  authenticateBearer: (c: Context) => Promise<{ tenantId: string; sub: string } | string>,
): void {
  const { store, now, baseOf } = core;

  /** Runs a REST handler with the bearer's tenant, or answers 401. */
  const api = (
    handler: (c: Context, tenant: string) => Promise<Response>,
  ) =>
  async (c: Context): Promise<Response> => {
    const grant = await authenticateBearer(c);
    if (typeof grant === "string") {
      return jiveError(401, grant, {
        "WWW-Authenticate": 'Bearer realm="sandbox", error="invalid_token"',
      });
    }
    return await handler(c, grant.tenantId);
  };

  const readJson = async (c: Context): Promise<unknown> => {
    const text = await c.req.text();
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };

  const apiLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => jiveError(413, `The request body is larger than ${MAX_BODY_BYTES} bytes`),
  });

  app.post(
    "/api/core/v3/webhooks",
    apiLimit,
    api(async (c, tenant) => {
      const fields = validateHookFields(await readJson(c));
      if (typeof fields === "string") return jiveError(400, fields);
      // The hook keeps the address it is registered under, whose origin any client names (Host): bounded, so it fits.
      const origin = new URL(c.req.url).origin;
      if (origin.length > MAX_ORIGIN_CHARS) {
        return jiveError(
          400,
          `The request's origin must be at most ${MAX_ORIGIN_CHARS} characters, got ${origin.length}`,
        );
      }
      const entity = await newHook(core, { ...fields, tenantId: tenant, baseUrl: baseOf(c), enabled: true });
      await core.faults?.afterCreate?.(entity);
      return jiveJson(200, entity);
    }),
  );

  const intParam = (
    value: string | undefined,
    name: string,
    fallback: number,
    min: number,
  ): number | string => {
    if (value === undefined || value === "") return fallback;
    if (!/^\d{1,9}$/.test(value) || Number(value) < min) {
      return `'${name}' must be an integer of at least ${min}, got ${JSON.stringify(value.slice(0, 40))}`;
    }
    return Number(value);
  };

  app.get(
    "/api/core/v3/webhooks",
    api(async (c, tenant) => {
      const startIndex = intParam(c.req.query("startIndex"), "startIndex", 0, 0);
      if (typeof startIndex === "string") return jiveError(400, startIndex);
      const asked = intParam(
        c.req.query("count"),
        "count",
        DEFAULT_PAGE_COUNT,
        1,
      );
      if (typeof asked === "string") return jiveError(400, asked);
      const count = Math.min(asked, MAX_PAGE_COUNT);
      const { list, more } = await store.hooks(tenant, startIndex, count);
      const pageUrl = (start: number): string => {
        const url = new URL(`${baseOf(c)}/api/core/v3/webhooks`);
        url.searchParams.set("startIndex", String(start));
        url.searchParams.set("count", String(count));
        return url.href;
      };
      const links: Record<string, string> = {};
      if (startIndex > 0) links.previous = pageUrl(Math.max(0, startIndex - count));
      if (more) links.next = pageUrl(startIndex + count);
      return jiveJson(200, {
        list: list.map((hook) => entityOf(hook)),
        startIndex,
        itemsPerPage: count,
        links,
      });
    }),
  );

  app.get(
    "/api/core/v3/webhooks/:id",
    api(async (c, tenant) => {
      const id = c.req.param("id")!;
      const hook = await store.hook(tenant, id);
      if (!hook) return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      return jiveJson(200, entityOf(hook));
    }),
  );

  app.put(
    "/api/core/v3/webhooks/:id",
    apiLimit,
    api(async (c, tenant) => {
      const id = c.req.param("id")!;
      if (!(await store.hook(tenant, id))) return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      const body = await readJson(c);
      const fields = validateHookFields(body);
      if (typeof fields === "string") return jiveError(400, fields);
      const enabled = (body as Record<string, unknown>).enabled;
      if (enabled !== undefined && typeof enabled !== "boolean") {
        return jiveError(400, `'enabled' must be a boolean, got ${JSON.stringify(enabled)}`);
      }
      // Applied to the hook as stored when it commits: a DELETE at the same moment wins (404), never undone.
      const updated = await store.updateHook(tenant, id, (hook): HookRecord => ({
        id: hook.id,
        tenantId: hook.tenantId,
        baseUrl: hook.baseUrl,
        ...fields,
        enabled: enabled ?? hook.enabled,
        published: hook.published,
        updated: new Date(now()).toISOString(),
      }));
      if (!updated) return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      return jiveJson(200, entityOf(updated));
    }),
  );

  app.delete(
    "/api/core/v3/webhooks/:id",
    api(async (c, tenant) => {
      const id = c.req.param("id")!;
      if (!(await store.deleteHook(tenant, id))) {
        return jiveError(404, `No webhook with id ${JSON.stringify(id)}`);
      }
      return new Response(null, { status: 204 });
    }),
  );

  app.get(
    "/api/core/v3/places/:id",
    api((c) => {
      const id = c.req.param("id")!;
      if (id !== PLACE_ID) {
        return Promise.resolve(
          jiveError(404, `No place with id ${JSON.stringify(id)}`),
        );
      }
      const base = baseOf(c);
      return Promise.resolve(jiveJson(200, {
        id: PLACE_ID,
        placeID: PLACE_ID,
        type: "space",
        name: "Sandbox space",
        displayName: "sandbox-space",
        html: `${base}/community/sandbox-space`,
        resources: {
          self: {
            ref: `${base}/api/core/v3/places/${PLACE_ID}`,
            allowed: ["GET"],
          },
        },
      }));
    }),
  );

  const apiRefusal = (_c: Context, message: string, status: 405): Response => jiveError(status, message);
  refuseOtherMethods(app, { path: "/api/core/v3/webhooks", methods: ["GET", "POST"] }, apiRefusal);
  refuseOtherMethods(app, { path: "/api/core/v3/webhooks/:id", methods: ["GET", "PUT", "DELETE"] }, apiRefusal);
  refuseOtherMethods(app, { path: "/api/core/v3/places/:id", methods: ["GET"] }, apiRefusal);

  app.all(
    "/api/*",
    (c) => jiveError(404, `No resource at ${c.req.method} ${new URL(c.req.url).pathname}`),
  );
}
