/**
 * The routes of a webhook's page (rendered in _webhook_page.tsx): the page,
 * "Send test event" for a sandbox hook (_test_event.tsx), enable/disable,
 * events, name and description, pointing a moved hook here
 * (_callback_move.tsx), and unregister (after a confirmation, which a GET
 * shows too).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { SYSTEM_EVENTS, type Webhook, type WebhookChanges } from "../../webhooks/mod.ts";
import { Confirm, confirmed } from "../components/Confirm.tsx";
import { Layout } from "../components/Layout.tsx";
import { DRAFT_NOTICE, draftList, draftText, takeDraft } from "../lib/drafts.ts";
import { labelProblem } from "../lib/labels.ts";
import { receiverByHookPrefix, receiverKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame } from "../lib/context.ts";
import { selfRef } from "./_webhook_parts.tsx";
import { movedCallback, NOT_MOVABLE } from "./_callback_move.tsx";
import { webhookPage, type WebhookPageOptions } from "./_webhook_page.tsx";
import { forgetDestinations, hookExists } from "./_forward_lookups.ts";
import { testEventRoute } from "./_test_event.tsx";

/** Adds the webhook page, its test event and its unregister to `app`. */
export function webhookDetailRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const webhooks = deps.webhooks;
  const detailPage = (c: Context<ConsoleEnv>, hook: Webhook, options: WebhookPageOptions = {}) =>
    webhookPage(c, deps, hook, options);
  const pathOf = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

  /** The answer to an action on a hook that no longer has a record: says so, and what did not happen. */
  const gone = (c: Context<ConsoleEnv>, what?: string) => {
    const id = c.req.param("id") ?? "";
    return html(
      c,
      <Layout title="Webhook not found" {...layoutFrame(c, deps)} error={what}>
        <p id="webhook-gone">
          No webhook has that id: it was unregistered (perhaps in another tab or by another user), or never existed. Its
          deliveries stay in the log:{" "}
          <a href={`/deliveries?hook=${encodeURIComponent(id)}`}>deliveries of this hook</a>.{" "}
          <a href="/webhooks">All webhooks</a>
        </p>
      </Layout>,
      404,
    );
  };

  app.get("/webhooks/:id", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return gone(c);
    // Back from a sign-in after the session ended: the form as it was sent, not saved.
    const draft = await takeDraft(c, deps);
    if (!draft) return await detailPage(c, hook);
    return await detailPage(c, hook, {
      notice: DRAFT_NOTICE,
      label: draft.kind === "label"
        ? { name: draftText(draft, "name"), description: draftText(draft, "description") }
        : undefined,
      events: draft.kind === "events"
        ? { selected: draftList(draft, "events"), object: draftText(draft, "object") }
        : undefined,
    });
  });

  // A reload or bookmark of an action's URL shows the hook's page rather than a 404.
  app.get(
    "/webhooks/:id/:action{(?:label|events|enabled|test|callback)}",
    (c) => c.redirect(pathOf(c.req.param("id")), 302),
  );

  /** Runs a platform change of a hook, then shows its page with what happened (and, refused, the form as sent). */
  const change = async (
    c: Context<ConsoleEnv>,
    changes: WebhookChanges,
    notice: string,
    what: string,
    keep: Pick<WebhookPageOptions, "events"> = {},
  ) => {
    const hook = await webhooks.findByID(c.req.param("id") ?? "");
    if (!hook) return gone(c, `The webhook is unregistered: ${what}.`);
    try {
      await webhooks.update(hook, changes);
    } catch (err) {
      // Unregistered meanwhile (another tab, or another console on this KV): the page says so, not "failed".
      if (await webhooks.findByID(hook.id).catch(() => hook) === null) {
        return gone(c, `The webhook is unregistered: ${what}.`);
      }
      const error = `The change failed: ${describeError(err)}`;
      // Module A names the field it refused ('events' or 'object'): the form marks it.
      const named = /^The change failed: Cannot update webhook: '(events|object)'/.exec(error)?.[1];
      const fault: "events" | "object" | undefined = named === "events"
        ? "events"
        : named === "object"
        ? "object"
        : undefined;
      const events = keep.events && { ...keep.events, fault };
      return await detailPage(c, hook, { error, status: err instanceof TypeError ? 400 : 502, ...keep, events });
    }
    return c.redirect(`${pathOf(hook.id)}?notice=${notice}`, 303);
  };

  app.post("/webhooks/:id/enabled", async (c) => {
    const value = (await c.req.parseBody()).enabled;
    if (value !== "1" && value !== "0") {
      // Anything else (a hand-made request, a stale form) changes nothing: "maybe" must not disable the hook.
      const hook = await webhooks.findByID(c.req.param("id"));
      if (!hook) return gone(c, "The webhook is unregistered: nothing was changed.");
      const shown = typeof value === "string" ? `'${value.slice(0, 40)}'` : "nothing";
      return await detailPage(c, hook, {
        error: `Nothing was changed: 'enabled' must be 1 (enable) or 0 (disable), got ${shown}`,
        status: 400,
      });
    }
    const enabled = value === "1";
    return await change(
      c,
      { enabled },
      enabled ? "enabled" : "disabled",
      `it was not ${enabled ? "enabled" : "disabled"}`,
    );
  });

  app.post("/webhooks/:id/events", async (c) => {
    const body = await c.req.parseBody({ all: true });
    const events = [...new Set([body.events ?? []].flat().filter((e): e is string => typeof e === "string"))];
    const typed = typeof body.object === "string" ? body.object : "";
    // As the register form: the platform wants no object for system events, and without scripts the field showing
    // the hook's place is sent as it stands.
    const object = events.some((e) => SYSTEM_EVENTS.includes(e)) ? null : typed.trim() || null;
    // Refused (a content event without an object, events of both kinds), the form comes back as it was sent.
    return await change(c, { events, object }, "events-saved", "its events were not saved", {
      events: { selected: events, object: typed },
    });
  });

  // A hook of this console at its old address (_callback_move.tsx): pointed here, when it is one of its receivers.
  app.post("/webhooks/:id/callback", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return gone(c, "The webhook is unregistered: its callback was not changed.");
    const callback = await movedCallback(deps, hook, String(hook.entity?.callback ?? ""));
    if (callback === null) return await detailPage(c, hook, { error: NOT_MOVABLE, status: 400 });
    return await change(c, { callback }, "callback-moved", "its callback was not changed");
  });

  app.post("/webhooks/:id/label", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return gone(c, "The webhook is unregistered: its name was not saved.");
    const body = await c.req.parseBody();
    const text = (v: unknown) => typeof v === "string" ? v.trim() : "";
    const typed = { name: text(body.name), description: text(body.description) };
    const problem = labelProblem(typed);
    if (problem) {
      return await detailPage(c, hook, {
        error: `${problem.message}. Nothing was saved.`,
        status: 400,
        label: problem.keep,
        labelFaults: problem.fields,
      });
    }
    await deps.labels.set(hook.id, typed);
    return c.redirect(`${pathOf(hook.id)}?notice=saved-label`, 303);
  });

  testEventRoute(app, deps, { detailPage, gone, pathOf });

  const confirmPage = (c: Context<ConsoleEnv>, hook: Webhook) =>
    html(
      c,
      <Layout title="Unregister this webhook?" {...layoutFrame(c, deps)}>
        <Confirm
          action={`${pathOf(hook.id)}/unregister`}
          csrf={c.get("session")!.csrf}
          label="Unregister"
          cancel={pathOf(hook.id)}
        >
          <p>
            The hook <code>{selfRef(hook)}</code>{" "}
            is deleted on the platform, then its record here with its "Forward to" destinations. Postbacks not yet
            forwarded to them are dropped with them. The platform stops posting its events; its deliveries stay in the
            log.
          </p>
        </Confirm>
      </Layout>,
    );

  app.get("/webhooks/:id/unregister", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    if (!hook) return gone(c, "The webhook is unregistered already.");
    return confirmPage(c, hook);
  });

  app.post("/webhooks/:id/unregister", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    const body = await c.req.parseBody();
    if (!hook) {
      await forgetLeft(c.req.param("id"), body);
      return gone(c, "The webhook is unregistered already.");
    }
    if (!confirmed(body)) return confirmPage(c, hook);
    try {
      await webhooks.unregister(hook);
    } catch (err) {
      return await detailPage(c, hook, { error: `Unregistering failed: ${describeError(err)}`, offerForget: true });
    }
    await forgetHere(hook.id);
    return c.redirect("/webhooks?notice=unregistered", 303);
  });

  // Its unregistering failed for good (the community removed, the platform gone): the record, its name and its
  // receiver go here only. The platform is not asked.
  app.post("/webhooks/:id/forget", async (c) => {
    const hook = await webhooks.findByID(c.req.param("id"));
    const body = await c.req.parseBody();
    if (!hook) {
      await forgetLeft(c.req.param("id"), body);
      return gone(c, "The webhook is gone already.");
    }
    if (!confirmed(body)) return c.redirect(pathOf(hook.id), 303);
    await webhooks.remove(hook.id);
    await forgetHere(hook.id);
    return c.redirect("/webhooks?notice=forgotten", 303);
  });

  /**
   * A confirmed Unregister or Forget of a hook whose record is gone: a console killed between removing the record and
   * {@linkcode forgetHere} left its destinations (secret and all, on no page) and its receiver's keys; they go now.
   * An id no record ever had finds nothing to forget; one too long for a key fails here, and is answered as gone.
   */
  const forgetLeft = async (hookId: string, body: Record<string, unknown>) => {
    if (confirmed(body)) await forgetHere(hookId).catch(() => {});
  };

  /**
   * Removes what the console keeps of a hook beside its record: its name, its receiver's keys, and its "Forward to"
   * destinations.
   */
  const forgetHere = async (hookId: string) => {
    await deps.labels.delete(hookId).catch(() => {});
    await forgetDestinations(deps.relay, [hookId], hookExists(deps));
    const keys: Deno.KvKey[] = [];
    for await (const entry of deps.kv.list({ prefix: receiverByHookPrefix(hookId) })) {
      keys.push(entry.key, receiverKey(String(entry.key[entry.key.length - 1])));
    }
    await retryLocked(() => {
      const op = deps.kv.atomic();
      for (const key of keys) op.delete(key);
      return op.commit();
    });
  };
}
