/**
 * A webhook's page: its facts, entity and deliveries (live), "Send test
 * event" for a sandbox hook, and unregister (after a confirmation).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { CONTENT_EVENTS, SYSTEM_EVENTS, type Webhook, type WebhookChanges } from "../../webhooks/mod.ts";
import { Confirm, confirmed } from "../components/Confirm.tsx";
import { Csrf } from "../components/Csrf.tsx";
import { DeliveryChart } from "../components/DeliveryChart.tsx";
import { labelProblem, MAX_DESCRIPTION, MAX_NAME } from "../lib/labels.ts";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import DeliveriesLive from "../islands/DeliveriesLive.tsx";
import EventPicker from "../islands/EventPicker.tsx";
import { receiverByHookPrefix, receiverKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame, noticeOf } from "../lib/context.ts";

import { entityField, selfRef } from "./_webhook_parts.tsx";

/** Adds the webhook page, its test event and its unregister to `app`. */
export function webhookDetailRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const webhooks = deps.webhooks;
  const detailPage = async (
    c: Context<ConsoleEnv>,
    hook: Webhook,
    error?: string,
    status: 400 | 502 = 502,
  ) => {
    const community = await webhooks.findWebhookCommunity(hook);
    const [deliveries, stats, label] = await Promise.all([
      deps.deliveries.list({ hookId: hook.id, limit: 50 }),
      deps.deliveries.stats(hook.id),
      deps.labels.get(hook.id),
    ]);
    const callback = entityField(hook.entity, "callback");
    const pickerProps = {
      selected: Array.isArray(hook.entity?.events) ? hook.entity.events as string[] : [],
      object: typeof hook.entity?.object === "string" ? hook.entity.object : "",
      content: CONTENT_EVENTS,
      system: SYSTEM_EVENTS,
    };
    const ours = callback.startsWith(`${deps.publicUrl}/hooks/`);
    return html(
      c,
      <Layout
        title={label?.name ? `Webhook “${label.name}”` : `Webhook ${hook.id}`}
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
        error={error}
      >
        {label?.description && <p id="webhook-description">{label.description}</p>}
        <dl class="facts" id="webhook-facts">
          <dt>Record id</dt>
          <dd>
            <code>{hook.id}</code>
          </dd>
          <dt>Community</dt>
          <dd>
            {community
              ? (
                <a href={`/communities/${encodeURIComponent(community.tenantId)}`}>
                  {community.name}
                </a>
              )
              : `unknown (tenant ${hook.tenantId})`}
          </dd>
          <dt>Webhook URL</dt>
          <dd>
            <code id="webhook-url">{selfRef(hook)}</code>
          </dd>
          <dt>State</dt>
          <dd id="webhook-state">
            {hook.entity?.enabled === false ? "disabled: the platform posts nothing" : "enabled"}{" "}
            <form method="post" action={`/webhooks/${encodeURIComponent(hook.id)}/enabled`} class="inline" id="toggle">
              <Csrf token={c.get("session")!.csrf} />
              <input type="hidden" name="enabled" value={hook.entity?.enabled === false ? "1" : "0"} />
              <button type="submit">{hook.entity?.enabled === false ? "Enable" : "Disable"}</button>
            </form>
          </dd>
          <dt>Events</dt>
          <dd id="webhook-events">{entityField(hook.entity, "events")}</dd>
          <dt>Object</dt>
          <dd>{entityField(hook.entity, "object") || "—"}</dd>
          <dt>Callback</dt>
          <dd>
            <code id="webhook-callback">{callback}</code>
            {ours && " (this console's receiver)"}
          </dd>
        </dl>
        <h2>Entity</h2>
        <pre id="entity">{JSON.stringify(hook.entity, null, 2)}</pre>
        <h2>Deliveries</h2>
        <DeliveryChart stats={stats} />
        {deps.sandboxTest && community?.tenantId === SANDBOX_COMMUNITY.tenantId && (
          <form method="post" action={`/webhooks/${encodeURIComponent(hook.id)}/test`} id="send-test">
            <Csrf token={c.get("session")!.csrf} />
            <p>
              <button type="submit">Send test event</button>{" "}
              The sandbox posts one event to this hook's callback; it shows here as it arrives. The{" "}
              <a href="/sandbox" id="sandbox-link">sandbox page</a> triggers more.
            </p>
          </form>
        )}
        <Island
          name="DeliveriesLive"
          props={{ deliveries, hookId: hook.id }}
        >
          <DeliveriesLive deliveries={deliveries} hookId={hook.id} />
        </Island>
        <h2>Edit events</h2>
        <form method="post" action={`/webhooks/${encodeURIComponent(hook.id)}/events`} class="stack" id="edit-events">
          <Csrf token={c.get("session")!.csrf} />
          <Island name="EventPicker" props={pickerProps}>
            <EventPicker {...pickerProps} />
          </Island>
          <button type="submit">Save the events</button>
        </form>
        <h2>Name and description</h2>
        <form method="post" action={`/webhooks/${encodeURIComponent(hook.id)}/label`} class="stack" id="label">
          <Csrf token={c.get("session")!.csrf} />
          <label>
            Name <input name="name" id="label-name" maxLength={MAX_NAME} value={label?.name ?? ""} />
          </label>
          <label>
            Description{" "}
            <textarea name="description" id="label-description" maxLength={MAX_DESCRIPTION} rows={2}>
              {label?.description ?? ""}
            </textarea>
          </label>
          <p class="hint">Kept by this console only; the platform does not see them.</p>
          <button type="submit">Save</button>
        </form>
        <h2>Unregister</h2>
        <form
          method="post"
          action={`/webhooks/${encodeURIComponent(hook.id)}/unregister`}
          id="unregister"
        >
          <Csrf token={c.get("session")!.csrf} />
          <p>Deletes the hook on the platform, then the record here.</p>
          <button type="submit" class="danger">Unregister</button>
        </form>
      </Layout>,
      error ? status : 200,
    );
  };

  app.get("/webhooks/:id", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) {
      return html(
        c,
        <Layout title="Webhook not found" {...layoutFrame(c, deps)}>
          <p>
            No webhook has that id (it may have been unregistered). Its deliveries stay in the log:{" "}
            <a href={`/deliveries?hook=${encodeURIComponent(c.req.param("id"))}`}>deliveries of this hook</a>.{" "}
            <a href="/webhooks">All webhooks</a>
          </p>
        </Layout>,
        404,
      );
    }
    return await detailPage(c, hook);
  });

  /** Runs a platform change of a hook, then shows its page with what happened. */
  const change = async (c: Context<ConsoleEnv>, changes: WebhookChanges, notice: string) => {
    const hook = await webhooks.findByID(c.req.param("id") ?? "");
    if (!hook) return c.redirect("/webhooks", 303);
    try {
      await webhooks.update(hook, changes);
    } catch (err) {
      return await detailPage(
        c,
        hook,
        `The change failed: ${describeError(err)}`,
        err instanceof TypeError ? 400 : 502,
      );
    }
    return c.redirect(`/webhooks/${encodeURIComponent(hook.id)}?notice=${notice}`, 303);
  };

  app.post("/webhooks/:id/enabled", async (c) => {
    const enabled = (await c.req.parseBody()).enabled === "1";
    return await change(c, { enabled }, enabled ? "enabled" : "disabled");
  });

  app.post("/webhooks/:id/events", async (c) => {
    const body = await c.req.parseBody({ all: true });
    const events = [body.events ?? []].flat().filter((e): e is string => typeof e === "string");
    const object = typeof body.object === "string" && body.object.trim() ? body.object.trim() : null;
    return await change(c, { events, object }, "events-saved");
  });

  app.post("/webhooks/:id/label", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return c.redirect("/webhooks", 303);
    const body = await c.req.parseBody();
    const text = (v: unknown) => typeof v === "string" ? v.trim() : "";
    const label = { name: text(body.name), description: text(body.description) };
    const problem = labelProblem(label);
    if (problem) return await detailPage(c, hook, problem, 400);
    await deps.labels.set(hook.id, label);
    return c.redirect(`/webhooks/${encodeURIComponent(hook.id)}?notice=saved-label`, 303);
  });

  app.post("/webhooks/:id/test", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return c.redirect("/webhooks", 303);
    const platformId = hook.entity?.id;
    if (!deps.sandboxTest || hook.tenantId !== SANDBOX_COMMUNITY.tenantId || platformId === undefined) {
      return await detailPage(c, hook, "Test events go only to hooks of the sandbox community");
    }
    try {
      const statuses = await deps.sandboxTest(String(platformId));
      if (statuses.length === 0) return await detailPage(c, hook, "The sandbox has no such hook any more");
    } catch (err) {
      return await detailPage(c, hook, `The test event could not be sent: ${describeError(err)}`);
    }
    return c.redirect(`/webhooks/${encodeURIComponent(hook.id)}?notice=triggered`, 303);
  });

  app.post("/webhooks/:id/unregister", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return c.redirect("/webhooks", 303);
    if (!confirmed(await c.req.parseBody())) {
      const path = `/webhooks/${encodeURIComponent(hook.id)}`;
      return html(
        c,
        <Layout title="Unregister this webhook?" {...layoutFrame(c, deps)}>
          <Confirm action={`${path}/unregister`} csrf={c.get("session")!.csrf} label="Unregister" cancel={path}>
            <p>
              The hook <code>{selfRef(hook)}</code>{" "}
              is deleted on the platform, then its record here. The platform stops posting its events; its deliveries
              stay in the log.
            </p>
          </Confirm>
        </Layout>,
      );
    }
    try {
      await webhooks.unregister(hook);
      await deps.labels.delete(hook.id).catch(() => {});
    } catch (err) {
      return await detailPage(
        c,
        hook,
        `Unregistering failed: ${describeError(err)}`,
      );
    }
    const keys: Deno.KvKey[] = [];
    for await (const entry of deps.kv.list({ prefix: receiverByHookPrefix(hook.id) })) {
      keys.push(entry.key, receiverKey(String(entry.key[entry.key.length - 1])));
    }
    await retryLocked(() => {
      const op = deps.kv.atomic();
      for (const key of keys) op.delete(key);
      return op.commit();
    });
    return c.redirect("/webhooks?notice=unregistered", 303);
  });
}
