/**
 * Webhooks: register (events checklist, object, callback defaulting to this
 * console's receiver), list with a tenant filter and cursor pagination,
 * lookup by webhook URL and by id (Module A's lookups), detail with the
 * platform's entity and the hook's deliveries, and unregister (the last two in webhook_detail.tsx).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { monotonicFactory } from "ulid";
import { type Community, CONTENT_EVENTS, SYSTEM_EVENTS, type Webhook } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import { Pager } from "../components/Pager.tsx";
import EventPicker from "../islands/EventPicker.tsx";
import { receiverByHookKey, receiverKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame, noticeOf } from "../lib/context.ts";

import { type RegisterForm, WebhookTable } from "./_webhook_parts.tsx";
import { webhookDetailRoutes } from "./webhook_detail.tsx";

const ulid = monotonicFactory();

export function webhookRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const { webhooks } = deps;
  const allCommunities = async (): Promise<Community[]> => {
    const out: Community[] = [];
    let cursor: string | undefined;
    do {
      const page = await webhooks.communities.list({ cursor, limit: 100 });
      out.push(...page.values);
      cursor = page.cursor || undefined;
    } while (cursor && out.length < 1000);
    return out;
  };
  const namesOf = (list: Community[]) => new Map(list.map((c) => [c.tenantId, c.name]));

  app.get("/webhooks", async (c) => {
    const tenant = c.req.query("tenant") ?? "";
    const cursor = c.req.query("cursor") ?? "";
    const url = (c.req.query("url") ?? "").trim();
    const id = (c.req.query("id") ?? "").trim();
    const communities = await allCommunities();
    let error: string | undefined;
    let hooks: Webhook[] = [];
    let next = "";
    let heading = "All webhooks";
    if (id) {
      const found = await webhooks.findByID(id);
      if (found) return c.redirect(`/webhooks/${encodeURIComponent(id)}`, 302);
      error = `No webhook has the id '${id}'`;
    } else if (url) {
      heading = "Webhooks with that URL";
      hooks = await webhooks.findByWebhookURL(url);
    } else {
      if (tenant) heading = `Webhooks of ${namesOf(communities).get(tenant) ?? tenant}`;
      try {
        const page = await webhooks.list({
          tenantId: tenant || undefined,
          cursor: cursor || undefined,
          limit: 20,
        });
        hooks = page.values;
        next = page.cursor;
      } catch (err) {
        if (!(err instanceof TypeError || err instanceof RangeError)) throw err;
        error = "That page cursor is not valid";
      }
    }
    const labels = await deps.labels.many(hooks.map((h) => h.id));
    return html(
      c,
      <Layout
        title="Webhooks"
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
        error={error}
      >
        <p>
          <a
            class="button"
            id="register-webhook"
            href={tenant ? `/webhooks/new?${new URLSearchParams({ tenant })}` : "/webhooks/new"}
          >
            Register a webhook
          </a>
        </p>
        <form method="get" action="/webhooks" class="filters" id="filter">
          <label>
            Community{" "}
            <select name="tenant">
              <option value="">All communities</option>
              {communities.map((co) => (
                <option
                  value={co.tenantId}
                  selected={co.tenantId === tenant}
                  key={co.tenantId}
                >
                  {co.name}
                </option>
              ))}
            </select>
          </label>{" "}
          <button type="submit">Filter</button>
        </form>
        <form method="get" action="/webhooks" class="filters" id="lookup-url">
          <label>
            Webhook URL{" "}
            <input
              type="url"
              name="url"
              value={url}
              placeholder="https://community.example.com/api/core/v3/webhooks/1"
            />
          </label>{" "}
          <button type="submit">Look up</button>
        </form>
        <form method="get" action="/webhooks" class="filters" id="lookup-id">
          <label>
            Webhook id <input type="text" name="id" value={id} />
          </label>{" "}
          <button type="submit">Open</button>
        </form>
        <h2>{heading}</h2>
        <WebhookTable hooks={hooks} names={namesOf(communities)} labels={labels} />
        {!url && !id && (
          <Pager
            path="/webhooks"
            params={{ tenant, cursor }}
            cursor={next}
          />
        )}
      </Layout>,
      error && id ? 404 : 200,
    );
  });

  const registerPage = async (
    c: Context<ConsoleEnv>,
    form: RegisterForm,
    error?: string,
  ) => {
    const communities = await allCommunities();
    return html(
      c,
      <Layout title="Register a webhook" {...layoutFrame(c, deps)} error={error}>
        {communities.length === 0
          ? (
            <p>
              Add a community first: <a href="/communities/new">Add</a>
            </p>
          )
          : (
            <form method="post" action="/webhooks" class="stack" id="register">
              <Csrf token={c.get("session")!.csrf} />
              <label>
                Community
                <select name="tenantId" id="community">
                  {communities.map((co) => (
                    <option
                      value={co.tenantId}
                      selected={co.tenantId === form.tenantId}
                      key={co.tenantId}
                    >
                      {co.name}
                      {co.oauth?.access_token ? "" : " (no tokens)"}
                    </option>
                  ))}
                </select>
              </label>
              <Island
                name="EventPicker"
                props={{ selected: form.events, object: form.object, content: CONTENT_EVENTS, system: SYSTEM_EVENTS }}
              >
                <EventPicker
                  selected={form.events}
                  object={form.object}
                  content={CONTENT_EVENTS}
                  system={SYSTEM_EVENTS}
                />
              </Island>
              {deps.sandboxPlace && (
                <p class="hint">
                  For the Sandbox community, use the object <code id="sandbox-place">{deps.sandboxPlace}</code>
                </p>
              )}
              <label>
                Callback URL
                <input
                  type="url"
                  name="callback"
                  id="callback"
                  value={form.callback}
                  placeholder={`${deps.publicUrl}/hooks/… (this console's receiver)`}
                />
                <small>
                  Leave blank to receive the postbacks in this console.
                </small>
              </label>
              <button type="submit">Register</button>
            </form>
          )}
      </Layout>,
      error ? 400 : 200,
    );
  };

  app.get("/webhooks/new", (c) =>
    registerPage(c, {
      tenantId: c.req.query("tenant") ?? "",
      events: [],
      object: "",
      callback: "",
    }));

  app.post("/webhooks", async (c) => {
    const body = await c.req.parseBody({ all: true });
    const list = (v: unknown): string[] =>
      (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((
        x,
      ): x is string => typeof x === "string" && x !== "");
    const one = (v: unknown) => (typeof v === "string" ? v.trim() : "");
    const form: RegisterForm = {
      tenantId: one(body.tenantId),
      events: list(body.events),
      object: one(body.object),
      callback: one(body.callback),
    };
    const community = form.tenantId ? await webhooks.communities.findByTenantID(form.tenantId) : null;
    if (!community) return registerPage(c, form, "Choose a community");
    if (form.events.length === 0) {
      return registerPage(c, form, "Choose at least one event");
    }
    const unknown = form.events.find((e) => !SYSTEM_EVENTS.includes(e) && !CONTENT_EVENTS.includes(e));
    if (unknown) return registerPage(c, form, `Unknown event '${unknown}'`);
    const system = form.events.some((e) => SYSTEM_EVENTS.includes(e));
    if (system && form.events.some((e) => CONTENT_EVENTS.includes(e))) {
      return registerPage(
        c,
        form,
        "System events and content events cannot be mixed in one webhook",
      );
    }
    if (!system && !form.object) {
      return registerPage(
        c,
        form,
        "Content events need an object (the URI of a place)",
      );
    }
    const receiverId = form.callback ? null : ulid();
    const callback = form.callback || `${deps.publicUrl}/hooks/${receiverId}`;
    let response;
    try {
      response = await webhooks.register({
        community: community.name,
        events: form.events,
        object: system ? undefined : form.object,
        callback,
      });
    } catch (err) {
      const message = describeError(err);
      return registerPage(
        c,
        form,
        /no access token/i.test(message)
          ? `${message}. Connect the community first (Communities → ${community.name} → Connect)`
          : `Registration failed: ${message}`,
      );
    }
    const ref = response.entity?.resources?.self?.ref ?? "";
    const record = (await webhooks.findByWebhookURL(ref)).find((w) => w.tenantId === community.tenantId);
    if (!record) return c.redirect("/webhooks?notice=registered", 303);
    if (receiverId) {
      await retryLocked(() =>
        deps.kv.atomic()
          .set(receiverKey(receiverId), { hookId: record.id })
          .set(receiverByHookKey(record.id, receiverId), true)
          .commit()
      );
    }
    return c.redirect(
      `/webhooks/${encodeURIComponent(record.id)}?notice=registered`,
      303,
    );
  });

  webhookDetailRoutes(app, deps);
}
