/**
 * Registering a webhook: the form (events checklist, object, callback
 * defaulting to this console's receiver), with a community preselected that
 * can register (the one last used, or a connected one) and a one-time token
 * issued to the session, so that submitting the form again (Back, then
 * Register) shows the hook the first submission made instead of making a
 * second one; a submission without one of this session's tokens registers
 * nothing and gets the form back, filled in, with a fresh token. A callback on a
 * loopback, private or link-local address is registered with a warning,
 * unless it is this console's own.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { monotonicFactory } from "ulid";
import { type Community, CONTENT_EVENTS, SYSTEM_EVENTS } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { fieldError } from "../components/field_error.ts";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import EventPicker from "../islands/EventPicker.tsx";
import { DRAFT_NOTICE, draftList, draftText, takeDraft } from "../lib/drafts.ts";
import { FormTokens } from "../lib/form_tokens.ts";
import { lastCommunityKey, receiverByHookKey, receiverKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame, sessionIdOf } from "../lib/context.ts";
import { allCommunities, type RegisterForm } from "./_webhook_parts.tsx";

const ulid = monotonicFactory();

/**
 * The community to preselect: the one asked for, else the one last used if
 * it still can register (is connected), else the first connected one, else
 * the last used, else the first.
 */
function preselect(communities: Community[], asked: string, last: string | null): string {
  const connected = (c: Community) => Boolean(c.oauth?.access_token);
  const known = (id: string | null) => communities.find((c) => c.tenantId === id);
  if (asked && known(asked)) return asked;
  const lastOne = known(last);
  if (lastOne && connected(lastOne)) return lastOne.tenantId;
  return (communities.find(connected) ?? lastOne ?? communities[0])?.tenantId ?? "";
}

/** The field of the register form an error is about, marked on the page. */
type Fault = "tenantId" | "events" | "object" | "callback";

/** Adds the register form and its submission to `app`. */
export function registerRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const { webhooks } = deps;
  const tokens = new FormTokens(deps.kv);
  // A value edited by hand into junk (not a tenant id) is no community used.
  const lastUsed = async (c: Context<ConsoleEnv>) => {
    const { value } = await deps.kv.get<unknown>(lastCommunityKey(c.get("session")!.user.sub));
    return typeof value === "string" && value !== "" ? value : null;
  };

  /** The form; `form.token` empty: with a fresh token for this session. `fault`: the field the error is about. */
  const registerPage = async (
    c: Context<ConsoleEnv>,
    form: RegisterForm & { token: string },
    error?: string,
    status: 400 | 409 | 502 = 400,
    notice?: string,
    fault?: Fault,
  ) => {
    const token = form.token || await tokens.issue(sessionIdOf(c, deps));
    const pickerProps = { selected: form.events, object: form.object, content: CONTENT_EVENTS, system: SYSTEM_EVENTS };
    const picked = fault === "events" || fault === "object" ? fault : undefined;
    const last = await lastUsed(c);
    const communities = await allCommunities(webhooks, form.tenantId, last);
    const selected = preselect(communities, form.tenantId, last);
    return html(
      c,
      <Layout title="Register a webhook" {...layoutFrame(c, deps)} error={error} notice={notice}>
        {communities.length === 0
          ? (
            <p>
              Add a community first: <a href="/communities/new">Add</a>
            </p>
          )
          : (
            <form method="post" action="/webhooks" class="stack" id="register">
              <Csrf token={c.get("session")!.csrf} />
              <input type="hidden" name="formToken" value={token} />
              <label>
                Community
                <select name="tenantId" id="community" {...fieldError(fault === "tenantId")}>
                  {communities.map((co) => (
                    <option value={co.tenantId} selected={co.tenantId === selected} key={co.tenantId}>
                      {co.name}
                      {co.oauth?.access_token ? "" : " (no tokens)"}
                    </option>
                  ))}
                </select>
              </label>
              <Island
                name="EventPicker"
                props={{ ...pickerProps, fault: picked }}
              >
                <EventPicker {...pickerProps} fault={picked} />
              </Island>
              <p class="hint">
                What each event reports, with an example payload:{" "}
                <a href="/events" id="event-catalog-link">the event catalog</a>.
              </p>
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
                  {...fieldError(fault === "callback")}
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
      error ? status : 200,
    );
  };

  app.get("/webhooks/new", async (c) => {
    // Back from a sign-in after the session ended: the form as it was sent, not registered.
    const draft = await takeDraft(c, deps);
    const form = {
      tenantId: draft ? draftText(draft, "tenantId") : c.req.query("tenant") ?? "",
      events: draft ? draftList(draft, "events") : [],
      object: draft ? draftText(draft, "object") : "",
      callback: draft ? draftText(draft, "callback") : "",
      token: "",
    };
    return await registerPage(c, form, undefined, 400, draft ? DRAFT_NOTICE : undefined);
  });

  app.post("/webhooks", async (c) => {
    const body = await c.req.parseBody({ all: true });
    // A set: an event named twice (a hand-made form) is registered once.
    const list = (v: unknown): string[] => [
      ...new Set(
        (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string =>
          typeof x === "string" && x !== ""
        ),
      ),
    ];
    const one = (v: unknown) => (typeof v === "string" ? v.trim() : "");
    const form = {
      tenantId: one(body.tenantId),
      events: list(body.events),
      object: one(body.object),
      callback: one(body.callback),
      token: one(body.formToken),
    };
    // Only with a token this session was given: a form sent again (Back, then Register) shows what its first
    // submission made; one without (missing, made up, another session's) comes back filled in, with a fresh one.
    let first;
    for (;;) {
      try {
        first = await tokens.take(form.token, sessionIdOf(c, deps));
      } catch (err) {
        return registerPage(c, { ...form, token: "" }, describeError(err));
      }
      // A double click sends the second before the first is answered: it waits for the first and lands where it did,
      // rather than on a form that, sent again, would register a second hook.
      if (first === null || Object.keys(first).length > 0) break;
      first = await tokens.settled(form.token);
      // Still in progress after the wait: the console that took it may have been killed mid-way, after the platform
      // made the hook. Waiting again would not end, and the hook shows in no list until a reconcile adopts it.
      if (first !== null && Object.keys(first).length === 0) first = await tokens.unfinished(form.token);
      if (first !== null) break;
      // The first one was refused and gave the token back: this one tries.
    }
    if (first?.hookId) {
      return c.redirect(`/webhooks/${encodeURIComponent(first.hookId)}?notice=already-registered`, 303);
    }
    if (first?.location) return c.redirect(first.location, 303);
    if (first) { // uncertain: the only use left
      return registerPage(
        c,
        { ...form, token: "" },
        "This form was sent already, and the platform may have registered its webhook then. Reconcile the " +
          "community before trying again: it adopts the hook if it was made",
        409,
      );
    }
    const refuse = async (error: string, fault?: Fault) => {
      await tokens.release(form.token);
      return registerPage(c, form, error, 400, undefined, fault);
    };
    const community = form.tenantId ? await webhooks.communities.findByTenantID(form.tenantId) : null;
    if (!community) return await refuse("Choose a community", "tenantId");
    if (form.events.length === 0) return await refuse("Choose at least one event", "events");
    const unknown = form.events.find((e) => !SYSTEM_EVENTS.includes(e) && !CONTENT_EVENTS.includes(e));
    if (unknown) return await refuse(`Unknown event '${unknown}'`, "events");
    const system = form.events.some((e) => SYSTEM_EVENTS.includes(e));
    if (system && form.events.some((e) => CONTENT_EVENTS.includes(e))) {
      return await refuse("System events and content events cannot be mixed in one webhook", "events");
    }
    if (!system && !form.object) return await refuse("Content events need an object (the URI of a place)", "object");
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
      // Module A checks the callback before any request (a TypeError naming it, API.md): the field is marked, and the
      // message does not repeat the URL (it may carry a password or a token).
      if (err instanceof TypeError && err.message.includes("'callback'")) {
        return await refuse(
          "The callback URL must be an absolute http(s) URL, such as https://app.example/hooks, or blank for this " +
            "console's receiver",
          "callback",
        );
      }
      const message = describeError(err);
      if ((err as { uncertain?: unknown } | null)?.uncertain === true) {
        // The platform may have made the hook all the same: this form's token stays spent (and says so), so a
        // reload does not register a second one; the page offers a fresh form for a deliberate second try.
        await tokens.uncertain(form.token).catch(() => {});
        return registerPage(
          c,
          { ...form, token: "" },
          `The platform may have registered the webhook all the same (${message}). Reconcile the community ` +
            `(Communities → ${community.name} → Reconcile) before trying again: it adopts the hook if it was made`,
          502,
        );
      }
      return await refuse(
        /no access token/i.test(message)
          ? `${message}. Connect the community first (Communities → ${community.name} → Connect)`
          : `Registration failed: ${message}`,
      );
    }
    await retryLocked(() => deps.kv.set(lastCommunityKey(c.get("session")!.user.sub), community.tenantId));
    const ref = response.entity?.resources?.self?.ref ?? "";
    const record = (await webhooks.findByWebhookURL(ref)).find((w) => w.tenantId === community.tenantId);
    if (!record) {
      await tokens.led(form.token, "/webhooks?notice=registered");
      return c.redirect("/webhooks?notice=registered", 303);
    }
    if (receiverId) {
      await retryLocked(() =>
        deps.kv.atomic()
          .set(receiverKey(receiverId), { hookId: record.id })
          .set(receiverByHookKey(record.id, receiverId), true)
          .commit()
      );
    }
    await tokens.done(form.token, record.id);
    // The hook's page warns of a callback on a private address, after registering.
    return c.redirect(`/webhooks/${encodeURIComponent(record.id)}?notice=registered`, 303);
  });
}
