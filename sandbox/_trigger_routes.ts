// The sandbox's trigger (POST /trigger, and Sandbox.trigger) that posts signed
// events to the hooks' callbacks, and its index page.
import type { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isKnownEvent } from "./_events.ts";
import { indexPage } from "./_pages.ts";
import type { HookRecord } from "./_store.ts";
import { buildPostback, defaultVerb, deliver } from "./_trigger.ts";
import type { SandboxCore } from "./_core.ts";
import { refuseOtherMethods } from "./_methods.ts";
import { BODY_TOO_LARGE, CROSS_SITE_FORM, csrfOr, FORM_TOO_LARGE, MAX_BODY_BYTES, selfRefOf } from "./_http.ts";
import { keepSent, type SentPostback } from "./_sent.ts";
import { failedDelivery, noticeCookie, readNotice } from "./_trigger_notice.ts";
import type { TriggerOptions, TriggerSummary } from "./types.ts";

/** The cookie that lets the page a trigger leads to show its notice, once. */
const TRIGGERED_COOKIE = "sandbox_triggered";

export function triggerRoutes(
  app: Hono,
  core: SandboxCore,
): { runTrigger: (options: TriggerOptions) => Promise<TriggerSummary | { status: number; message: string }> } {
  const { store, basePath, fetchFn, now, signingNow, tenantId, placeFor } = core;

  let contentSeq = 2000;

  /** Sends the postbacks; a string when the request names no valid target. */
  const runTrigger = async (
    options: TriggerOptions,
  ): Promise<TriggerSummary | { status: 400 | 404; message: string }> => {
    const { webhookId, event, verb } = options;
    if (webhookId !== undefined && (typeof webhookId !== "string" || webhookId === "")) {
      return { status: 400, message: "'webhookId' must be a non-empty string" };
    }
    if (event !== undefined && (typeof event !== "string" || !isKnownEvent(event))) {
      return {
        status: 400,
        message: `'event' must be an event name, got ${JSON.stringify(event)}`,
      };
    }
    if (
      verb !== undefined && (typeof verb !== "string" || !/^jive:[a-z_]{1,60}$/.test(verb))
    ) {
      return {
        status: 400,
        message: `'verb' must look like "jive:created", got ${JSON.stringify(verb)}`,
      };
    }
    let hooks: HookRecord[];
    if (webhookId) {
      const hook = await store.hook(tenantId, webhookId);
      if (!hook) {
        return { status: 404, message: `No webhook with id ${JSON.stringify(webhookId)}` };
      }
      hooks = [hook];
    } else {
      hooks = await store.allHooks(tenantId);
    }
    hooks = hooks.filter((hook) => hook.enabled && (event === undefined || hook.events.includes(event)));
    const client = await store.client("community");
    const ctx = {
      fetch: fetchFn,
      now: signingNow,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      keep: (id: string, timestamp: number, sent: SentPostback) => keepSent(core.kv, id, timestamp, sent),
    };
    const delivered = await Promise.all(hooks.map((hook) => {
      const kind = event ?? hook.events[0];
      const activityVerb = verb ?? defaultVerb(kind);
      const postback = buildPostback(
        hook,
        selfRefOf(hook),
        kind,
        activityVerb,
        now(),
        ++contentSeq,
      );
      return deliver(ctx, hook, kind, postback);
    }));
    return { delivered };
  };

  const isFormPost = (c: Context): boolean =>
    /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(c.req.header("Content-Type") ?? "");

  app.post(
    "/trigger",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => isFormPost(c) ? c.text(FORM_TOO_LARGE, 413) : c.json({ error: BODY_TOO_LARGE }, 413),
    }),
    csrfOr((c) => isFormPost(c) ? c.text(CROSS_SITE_FORM, 403) : c.json({ error: CROSS_SITE_FORM }, 403)),
    async (c) => {
      const isForm = isFormPost(c);
      let options: TriggerOptions = {};
      if (isForm) {
        const form = await c.req.parseBody().catch(() => null);
        if (form === null) return c.text("The form could not be read", 400);
        for (const name of ["webhookId", "event", "verb"] as const) {
          const value = form[name];
          if (typeof value === "string" && value !== "") options[name] = value;
        }
      } else {
        const text = await c.req.text();
        let body: unknown = {};
        try {
          body = text.trim() === "" ? {} : JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          return c.json({ error: "The body must be a JSON object" }, 400);
        }
        options = body as TriggerOptions;
      }
      const result = await runTrigger(options);
      if ("status" in result) {
        return isForm ? c.text(result.message, result.status) : c.json({ error: result.message }, result.status);
      }
      if (!isForm) return c.json(result);
      // An HTML form: back to the page it came from (same origin only).
      const origin = new URL(c.req.url).origin;
      let back = new URL(`${origin}${basePath}/`);
      const referer = c.req.header("Referer");
      if (referer) {
        try {
          const url = new URL(referer);
          if (url.origin === origin) back = url;
        } catch {
          // Keep the sandbox index.
        }
      }
      const failed = result.delivered.filter(failedDelivery).length;
      back.searchParams.set("triggered", String(result.delivered.length));
      if (failed > 0) back.searchParams.set("failed", String(failed));
      else back.searchParams.delete("failed");
      // The notice is for this browser, once: the page shows it only with this cookie, which it clears. It carries
      // why each failed postback failed (never from the address, which anyone can write).
      setCookie(c, TRIGGERED_COOKIE, noticeCookie(result.delivered), {
        path: "/",
        maxAge: 60,
        httpOnly: true,
        sameSite: "Lax",
        secure: new URL(c.req.url).protocol === "https:",
      });
      return c.redirect(back.href, 303);
    },
  );

  // ---- Index ---------------------------------------------------------------

  const index = async (c: Context): Promise<Response> => {
    const origin = new URL(c.req.url).origin;
    const community = await store.client("community");
    const hooks = await store.allHooks(tenantId);
    // A trigger's notice (?triggered=N&failed=M) shows once, to the browser that triggered (its cookie, cleared
    // here): a reload, Back (the page is not kept: no-store) or the address opened again shows none.
    const flash = getCookie(c, TRIGGERED_COOKIE);
    const notice = readNotice(flash, c.req.query("triggered"), c.req.query("failed"));
    if (flash !== undefined) deleteCookie(c, TRIGGERED_COOKIE, { path: "/" });
    if (notice) c.header("cache-control", "no-store");
    return c.html(indexPage({
      basePath,
      baseUrl: origin + basePath,
      placeUri: placeFor(origin),
      tenantId,
      communityClientId: community.clientId,
      hooks,
      notice,
    }));
  };
  refuseOtherMethods(app, { path: "/trigger", methods: ["POST"] }, (c, error, status) => c.json({ error }, status));
  app.get("/", index);
  // Mounted with app.route(), "/" matches "/sandbox" only; serve "/sandbox/" too.
  app.get("*", (c) => new URL(c.req.url).pathname === `${basePath}/` ? index(c) : c.notFound());

  return { runTrigger };
}
