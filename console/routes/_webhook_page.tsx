/**
 * The page of one webhook: its facts, its actions (Edit, Enable/Disable,
 * Send test event, Unregister) before its latest deliveries, then its entity
 * and the edit forms. The routes that act on it are in webhook_detail.tsx.
 *
 * @module
 */

import { ForwardSection, hookForwarding } from "./_delivery_forwards.tsx";
import type { Context } from "hono";
import type { VNode } from "preact";
import { CONTENT_EVENTS, SYSTEM_EVENTS, type Webhook } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { DeliveryChart } from "../components/DeliveryChart.tsx";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import DeliveriesLive from "../islands/DeliveriesLive.tsx";
import EventPicker from "../islands/EventPicker.tsx";
import type { DeliveryView } from "../log/mod.ts";
import { type HookLabel, MAX_DESCRIPTION, MAX_NAME } from "../lib/labels.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { type ConsoleEnv, type Deps, html, layoutFrame, noticeOf } from "../lib/context.ts";
import { entityField, privateCallback, selfRef } from "./_webhook_parts.tsx";
import { limitsFor, RateLimitFacts } from "./_rate_limit_facts.tsx";

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
  /** The events form's values, instead of the hook's. */
  events?: { selected: string[]; object: string };
  /** Offer Enable beside the error (a test event to a disabled hook). */
  offerEnable?: boolean;
  /** Offer to forget the record here only (its unregistering failed: community removed, platform unreachable). */
  offerForget?: boolean;
}

/** What the platform said of a callback it could not reach, logged as the hook's delivery. */
const UNREACHED = /^Platform-side failure: the platform could not reach the callback (\(.*\))$/s;

/**
 * Notices of this page's own redirects (`?notice=...`), beside the shared
 * ones; a test event refused is an error, and one the platform could not
 * deliver (`answer=0`) says why as its attempt, the hook's newest delivery
 * if logged since the attempt started (`at`), was logged (never text from
 * the URL).
 */
function pageNotice(
  c: Context<ConsoleEnv>,
  ours: boolean,
  newest: DeliveryView | undefined,
  disabled: boolean,
): { notice?: string; error?: string; offerEnable?: boolean } {
  const answer = Number(c.req.query("answer"));
  if (c.req.query("notice") === "triggered" && c.req.query("answer") === "0") {
    // This attempt's (logged since it started: `at`), not an older one's when this one could not be logged.
    const at = Number(c.req.query("at") || NaN); // absent: no attempt to name a reason for
    const recent = newest !== undefined && Number.isFinite(at) && Date.parse(newest.receivedAt) >= at;
    const why = recent && newest.status === 0 ? UNREACHED.exec(newest.reason ?? "")?.[1] : undefined;
    return {
      error: `The platform could not reach the callback${
        why ? ` ${why}` : ""
      }. The attempt is logged in the deliveries below.`,
    };
  }
  if (c.req.query("notice") === "triggered" && Number.isInteger(answer) && answer >= 100 && answer <= 599) {
    const who = ours ? "this console's receiver" : "the callback";
    return answer >= 200 && answer <= 299
      ? { notice: `The platform delivered the test event: ${who} answered ${answer}.` }
      : {
        error: `The test event failed: the platform posted it, and ${who} refused it with ${answer}${
          ours ? " (the delivery below says why)" : ""
        }.`,
      };
  }
  // A test event refused as the hook is disabled (shown after a redirect): said while the record is disabled still.
  if (c.req.query("notice") === "test-disabled" && disabled) {
    return {
      error: "No test event was sent: the hook is disabled, so the platform posts nothing to it.",
      offerEnable: true,
    };
  }
  if (c.req.query("notice") === "test-disabled-platform") {
    return {
      error: "No test event was sent: the hook is disabled on the platform, so the platform posts nothing to it.",
      offerEnable: true,
    };
  }
  if (c.req.query("notice") === "already-registered") {
    return {
      notice: "This form was submitted already: this is the webhook it registered. Nothing was registered again.",
    };
  }
  return { notice: noticeOf(c) };
}

/** The warning shown after registering a hook whose callback a platform on the internet cannot reach. */
async function callbackWarning(c: Context<ConsoleEnv>, deps: Deps, callback: string): Promise<string | undefined> {
  if (c.req.query("notice") !== "registered" || !callback) return undefined;
  const reason = await privateCallback(callback, deps.publicUrl);
  if (!reason) return undefined;
  // The sandbox's postbacks go through the same address check as every outbound call: say what it will do.
  const sandbox = deps.allowPrivateNetwork
    ? "Only a platform on this network, such as this console's sandbox, can post to it."
    : "This console's sandbox will not post to it either (it refuses such addresses unless the console runs with ALLOW_PRIVATE_NETWORK=1).";
  return `Warning: the callback is on an address a platform on the internet cannot reach (${reason}). ${sandbox}`;
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
  const csrf = c.get("session")!.csrf;
  const path = `/webhooks/${encodeURIComponent(hook.id)}`;
  const callback = entityField(hook.entity, "callback");
  const pickerProps = {
    selected: options.events?.selected ??
      (Array.isArray(hook.entity?.events) ? hook.entity.events as string[] : []),
    object: options.events?.object ?? (typeof hook.entity?.object === "string" ? hook.entity.object : ""),
    content: CONTENT_EVENTS,
    system: SYSTEM_EVENTS,
  };
  const ours = callback.startsWith(`${deps.publicUrl}/hooks/`);
  const disabled = hook.entity?.enabled === false;
  const warning = await callbackWarning(c, deps, callback);
  const testable = Boolean(deps.sandboxTest) && community?.tenantId === SANDBOX_COMMUNITY.tenantId;
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
          <code id="webhook-callback">{callback}</code>
          {ours && " (this console's receiver)"}
        </dd>
      </dl>
      <div class="actions" id="webhook-actions">
        <a class="button" href="#edit" id="edit-link">Edit</a> <Toggle hook={hook} csrf={csrf} id="toggle" />{" "}
        {testable && (
          <form method="post" action={`${path}/test`} class="inline" id="send-test">
            <Csrf token={csrf} />
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
      <pre id="entity">{JSON.stringify(hook.entity, null, 2)}</pre>
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
      <form method="post" action={`${path}/unregister`} id="unregister">
        <Csrf token={csrf} />
        <p>Deletes the hook on the platform, then the record here (after a confirmation).</p>
        <button type="submit" class="danger">Unregister</button>
      </form>
    </Layout>,
    options.error ? options.status ?? 502 : 200,
  );
}
