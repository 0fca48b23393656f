/**
 * The page of one webhook: its facts, its actions (Edit, Enable/Disable,
 * Send test event, Unregister) before its latest deliveries, then its entity
 * and the edit forms. The routes that act on it are in webhook_detail.tsx,
 * its notices in _webhook_notices.ts.
 *
 * @module
 */

import { ForwardSection, hookForwarding } from "./_delivery_forwards.tsx";
import type { Context } from "hono";
import type { VNode } from "preact";
import { CONTENT_EVENTS, SYSTEM_EVENTS, type Webhook } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { CallbackMove, movedCallback } from "./_callback_move.tsx";
import { DeliveryChart } from "../components/DeliveryChart.tsx";
import { Island } from "../components/Island.tsx";
import { fieldError, Layout } from "../components/Layout.tsx";
import DeliveriesLive from "../islands/DeliveriesLive.tsx";
import EventPicker from "../islands/EventPicker.tsx";
import { type HookLabel, MAX_DESCRIPTION, MAX_NAME } from "../lib/labels.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { type ConsoleEnv, type Deps, html, layoutFrame } from "../lib/context.ts";
import { shownUrl } from "../lib/shown_url.ts";
import { entityField, selfRef } from "./_webhook_parts.tsx";
import { callbackWarning, pageNotice } from "./_webhook_notices.ts";
import { limitsFor, RateLimitFacts } from "./_rate_limit_facts.tsx";
import { onceToken } from "./_once.ts";

/** What the one-time token of a hook's "Send test event" button is for. */
export function testScope(hookId: string): string {
  return `test\n${hookId}`;
}

/** How many of its latest deliveries the webhook page shows (the rest are on the deliveries page). */
export const LATEST_DELIVERIES = 10;

/** What a webhook page shows beside the hook. */
export interface WebhookPageOptions {
  /** An error above the content. */
  error?: string;
  /** The status with the error; default 502. */
  status?: 400 | 404 | 409 | 502;
  /** A notice, instead of the one `?notice=` names. */
  notice?: string;
  /** The name form's values (refused, or kept from a session that ended), instead of the stored label. */
  label?: HookLabel;
  /** The name form's fields a refusal was about (marked invalid). */
  labelFaults?: (keyof HookLabel)[];
  /** The events form's values, instead of the hook's, and what a refusal was about (marked invalid). */
  events?: { selected: string[]; object: string; fault?: "events" | "object" };
  /** Offer Enable beside the error (a test event to a disabled hook). */
  offerEnable?: boolean;
  /** Offer to forget the record here only (its unregistering failed: community removed, platform unreachable). */
  offerForget?: boolean;
}

/** The form that enables (or disables) the hook on the platform. */
function Toggle({ hook, csrf, id, enable }: { hook: Webhook; csrf: string; id: string; enable?: boolean }): VNode {
  // `enable`: the offer after a refused test event, which enables whatever the record says (the platform's may differ).
  const disabled = enable || hook.entity?.enabled === false;
  return (
    <form method="post" action={`/webhooks/${encodeURIComponent(hook.id)}/enabled`} class="inline" id={id}>
      <Csrf token={csrf} />
      <input type="hidden" name="enabled" value={disabled ? "1" : "0"} />
      <button type="submit">{disabled ? "Enable" : "Disable"}</button>
    </form>
  );
}

/**
 * Renders a webhook's page.
 *
 * @param c the request context (signed in)
 * @param deps the console's dependencies
 * @param hook the webhook record
 * @param options an error, a notice, form values to keep
 * @returns the page
 */
export async function webhookPage(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hook: Webhook,
  options: WebhookPageOptions = {},
): Promise<Response> {
  const community = await deps.webhooks.findWebhookCommunity(hook);
  const [deliveries, stats, stored] = await Promise.all([
    deps.deliveries.list({ hookId: hook.id, limit: LATEST_DELIVERIES }),
    deps.deliveries.stats(hook.id),
    deps.labels.get(hook.id),
  ]);
  const label = options.label ?? stored;
  const labelFaults = options.labelFaults ?? [];
  const csrf = c.get("session")!.csrf;
  const path = `/webhooks/${encodeURIComponent(hook.id)}`;
  const callback = entityField(hook.entity, "callback");
  const pickerProps = {
    selected: options.events?.selected ??
      (Array.isArray(hook.entity?.events) ? hook.entity.events as string[] : []),
    object: options.events?.object ?? (typeof hook.entity?.object === "string" ? hook.entity.object : ""),
    content: CONTENT_EVENTS,
    system: SYSTEM_EVENTS,
    fault: options.events?.fault,
  };
  const ours = callback.startsWith(`${deps.publicUrl}/hooks/`);
  const moveTo = await movedCallback(deps, hook, callback);
  const disabled = hook.entity?.enabled === false;
  const warning = await callbackWarning(c, deps, callback);
  const testable = Boolean(deps.sandboxTest) && community?.tenantId === SANDBOX_COMMUNITY.tenantId;
  const testToken = testable ? await onceToken(c, deps, testScope(hook.id)) : "";
  const fromQuery = options.notice === undefined ? pageNotice(c, ours, deliveries[0], disabled) : {};
  const limits = await limitsFor(c, deps, { tenantId: hook.tenantId, receiver: ours, sandbox: testable });
  const forwarding = await hookForwarding(
    deps,
    hook.id,
    c.req.query("notice") === "triggered" ? deliveries[0] : undefined,
  );
  return html(
    c,
    <Layout
      title={stored?.name ? `Webhook “${stored.name}”` : `Webhook ${hook.id}`}
      {...layoutFrame(c, deps)}
      notice={options.notice ?? fromQuery.notice}
      noticeDetails={warning ? "callback-warning" : undefined}
      error={options.error ?? fromQuery.error}
    >
      {warning && <p class="notice warning" role="note" id="callback-warning">{warning}</p>}
      {(options.offerEnable || fromQuery.offerEnable) && (
        <div class="offer" id="offer-enable">
          <p>Enable the hook, then send the test event again.</p>
          <Toggle hook={hook} csrf={csrf} id="enable-now" enable />
        </div>
      )}
      {options.offerForget && (
        <div class="offer" id="offer-forget">
          <p>
            If the platform or this community is gone for good, forget the hook here: its record goes, the platform is
            not asked, and postbacks to its callback are refused from then on. Its deliveries stay in the log.
          </p>
          <form method="post" action={`${path}/forget`}>
            <Csrf token={csrf} />
            <button type="submit" name="confirm" value="yes">Forget this webhook here</button>
          </form>
        </div>
      )}
      {moveTo && <CallbackMove from={callback} to={moveTo} action={`${path}/callback`} csrf={csrf} />}
      {stored?.description && <p id="webhook-description">{stored.description}</p>}
      <dl class="facts" id="webhook-facts">
        <dt>Record id</dt>
        <dd>
          <code>{hook.id}</code>
        </dd>
        <dt>Community</dt>
        <dd>
          {community
            ? <a href={`/communities/${encodeURIComponent(community.tenantId)}`}>{community.name}</a>
            : `unknown (tenant ${hook.tenantId})`}
        </dd>
        <dt>Webhook URL</dt>
        <dd>
          <code id="webhook-url">{selfRef(hook)}</code>
        </dd>
        <dt>State</dt>
        <dd id="webhook-state">{disabled ? "disabled: the platform posts nothing" : "enabled"}</dd>
        <dt>Events</dt>
        <dd>
          <span id="webhook-events">{entityField(hook.entity, "events")}</span>{" "}
          <small>
            (<a href="/events" id="event-catalog-link">what each event reports</a>)
          </small>
        </dd>
        <dt>Object</dt>
        <dd>{entityField(hook.entity, "object") || "—"}</dd>
        <dt>Callback</dt>
        <dd>
          <code id="webhook-callback">{shownUrl(callback)}</code>
          {ours && " (this console's receiver)"}
        </dd>
      </dl>
      <div class="actions" id="webhook-actions">
        <a class="button" href="#edit" id="edit-link">Edit</a> <Toggle hook={hook} csrf={csrf} id="toggle" />{" "}
        {testable && (
          <form method="post" action={`${path}/test`} class="inline" id="send-test">
            <Csrf token={csrf} />
            <input type="hidden" name="formToken" value={testToken} />
            <button type="submit">Send test event</button>
          </form>
        )} <a class="button danger" href={`${path}/unregister`} id="unregister-link">Unregister</a>
      </div>
      {testable && (
        <p class="hint" id="send-test-hint">
          {disabled
            ? "The hook is disabled: the platform posts nothing to it, test events included. Enable it first."
            : "Send test event: the sandbox posts one event to the callback and the page says what the callback answered."}
          {" "}
          The <a href="/sandbox" id="sandbox-link">sandbox page</a> triggers more.
        </p>
      )}
      <ForwardSection hookId={hook.id} forwarding={forwarding} />
      <h2>Latest deliveries</h2>
      <DeliveryChart stats={stats} />
      <Island name="DeliveriesLive" props={{ deliveries, hookId: hook.id, max: LATEST_DELIVERIES }}>
        <DeliveriesLive deliveries={deliveries} hookId={hook.id} max={LATEST_DELIVERIES} />
      </Island>
      <p>
        <a href={`/deliveries?hook=${encodeURIComponent(hook.id)}`} id="all-deliveries">
          All deliveries of this webhook
        </a>
      </p>
      <RateLimitFacts limits={limits} />
      {!ours && (
        <p class="hint" id="limits-elsewhere">
          Postbacks go to a callback elsewhere: this console's receiver limit does not apply to them.
        </p>
      )}
      <h2>Entity</h2>
      <pre id="entity">{JSON.stringify({ ...hook.entity, ...(callback && { callback: shownUrl(callback) }) }, null, 2)}</pre>
      <h2 id="edit">Edit events</h2>
      <form method="post" action={`${path}/events`} class="stack" id="edit-events">
        <Csrf token={csrf} />
        <Island name="EventPicker" props={pickerProps}>
          <EventPicker {...pickerProps} />
        </Island>
        <button type="submit">Save the events</button>
      </form>
      <h2>Name and description</h2>
      <form method="post" action={`${path}/label`} class="stack" id="label">
        <Csrf token={csrf} />
        <label>
          Name{" "}
          <input
            name="name"
            id="label-name"
            maxLength={MAX_NAME}
            value={label?.name ?? ""}
            {...fieldError(labelFaults.includes("name"))}
          />
        </label>
        <label>
          Description{" "}
          <textarea
            name="description"
            id="label-description"
            maxLength={MAX_DESCRIPTION}
            rows={2}
            {...fieldError(labelFaults.includes("description"))}
          >
            {label?.description ?? ""}
          </textarea>
        </label>
        <p class="hint">Kept by this console only; the platform does not see them.</p>
        <button type="submit">Save</button>
      </form>
      <h2>Unregister</h2>
      <form method="post" action={`${path}/unregister`} id="unregister">
        <Csrf token={csrf} />
        <p>Deletes the hook on the platform, then the record here (after a confirmation).</p>
        <button type="submit" class="danger">Unregister</button>
      </form>
    </Layout>,
    options.error ? options.status ?? 502 : 200,
  );
}
