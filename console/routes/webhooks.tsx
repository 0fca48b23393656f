/**
 * Webhooks: the list with a tenant filter and cursor pagination, and lookup
 * by webhook URL and by id (Module A's lookups). Registering is in
 * webhook_register.tsx, a hook's page and its actions in webhook_detail.tsx.
 *
 * @module
 */

import type { Hono } from "hono";
import type { ComponentChildren } from "preact";
import type { Community, Webhook } from "../../webhooks/mod.ts";
import { Layout } from "../components/Layout.tsx";
import { Pager } from "../components/Pager.tsx";
import { hookHealth } from "../components/HookHealth.tsx";
import { type ConsoleEnv, type Deps, html, layoutFrame, noticeOf } from "../lib/context.ts";
import { echoed } from "../lib/text_fit.ts";

import { allCommunities, WebhookTable } from "./_webhook_parts.tsx";
import { MovedBanner, movedHooks } from "./_callback_move.tsx";
import { webhookDetailRoutes } from "./webhook_detail.tsx";
import { registerRoutes } from "./webhook_register.tsx";

export function webhookRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const { webhooks } = deps;
  const namesOf = (list: Community[]) => new Map(list.map((c) => [c.tenantId, c.name]));

  app.get("/webhooks", async (c) => {
    const tenant = c.req.query("tenant") ?? "";
    const cursor = c.req.query("cursor") ?? "";
    const url = (c.req.query("url") ?? "").trim();
    const id = (c.req.query("id") ?? "").trim();
    const communities = await allCommunities(webhooks, tenant);
    // The community's name, else the tenant id the address holds, cut: it may be anything up to a query's length.
    const tenantName = namesOf(communities).get(tenant) ?? echoed(tenant);
    let error: string | undefined;
    let hooks: Webhook[] = [];
    let next = "";
    let heading = "All webhooks";
    if (id) {
      const found = await webhooks.findByID(id);
      if (found) return c.redirect(`/webhooks/${encodeURIComponent(id)}`, 302);
      // Shown cut, its control characters escaped: the id is whatever the address bar held.
      error = `No webhook has the id '${JSON.stringify(echoed(id)).slice(1, -1)}'`;
    } else if (url) {
      heading = "Webhooks with that URL";
      hooks = await webhooks.findByWebhookURL(url);
    } else {
      if (tenant) heading = `Webhooks of ${tenantName}`;
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
    const [labels, moved] = await Promise.all([deps.labels.many(hooks.map((h) => h.id)), movedHooks(deps, hooks)]);
    return html(
      c,
      <Layout
        title="Webhooks"
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
        error={error}
      >
        <MovedBanner hooks={moved} />
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
        <WebhookTable
          hooks={hooks}
          names={namesOf(communities)}
          labels={labels}
          health={await hookHealth(deps.deliveries, hooks.map((h) => h.id))}
          empty={emptyList({ tenant, name: tenantName, url, cursor, looked: !!(id || error) })}
        />
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

  // The health of the hooks named (`?id=a&id=b`, up to 200), for the live cells of the list (islands/LiveHealth.tsx):
  // one request for a page's cells. An id that names no record is left out, as the hook's page would answer 404.
  app.get("/webhooks/health.json", async (c) => {
    const ids = [...new Set(c.req.queries("id") ?? [])];
    if (ids.length === 0 || ids.length > 200 || ids.some((id) => id === "" || id.length > 200)) {
      return c.json({ error: "Name 1 to 200 webhook ids, each as id=..." }, 400);
    }
    const known = await Promise.all(ids.map(async (id) => await deps.webhooks.findByID(id) ? id : null));
    const health = await hookHealth(deps.deliveries, known.filter((id): id is string => id !== null));
    return c.json(Object.fromEntries(health));
  });

  // One hook's health.
  app.get("/webhooks/:id/health.json", async (c) => {
    const id = c.req.param("id");
    if (id.length > 200) return c.json({ error: "Not a webhook id" }, 404); // too long for a KV key of the log
    // As the hook's page: no record, no health (an empty one would say an unknown id is a quiet hook).
    if (!await deps.webhooks.findByID(id)) return c.json({ error: "No webhook has that id" }, 404);
    const health = await hookHealth(deps.deliveries, [id]);
    return c.json(health.get(id) ?? { total: 0, rejected: 0 });
  });

  registerRoutes(app, deps);
  webhookDetailRoutes(app, deps);
}

/** What the empty list says, by what it lists: the step that fills it, with a link to that. */
function emptyList(
  at: { tenant: string; name?: string; url: string; cursor: string; looked: boolean },
): ComponentChildren {
  const all = <a href="/webhooks">All webhooks</a>;
  if (at.looked) return <>No webhook to show. {all}</>;
  if (at.url) return <>No webhook has that webhook URL. {all}</>;
  if (at.cursor) return <>No webhooks on this page. {all}</>;
  if (at.tenant) {
    return (
      <>
        No webhook of {at.name ?? at.tenant} yet.{" "}
        <a href={`/webhooks/new?${new URLSearchParams({ tenant: at.tenant })}`}>Register one</a> to receive its events.
      </>
    );
  }
  return (
    <>
      No webhook is registered yet. <a href="/webhooks/new">Register a webhook</a>{" "}
      to receive a community's events in this console.
    </>
  );
}
