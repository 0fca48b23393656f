/**
 * A delivery's page: how the request went (status, time taken, the
 * signature verdict with tenant, client id and the timestamp's age), its
 * headers with the `Authorization` value masked, the body raw and pretty
 * with a copy button, the other items of its postback, and its forwards to
 * the hook's "Forward to" destinations with their attempts. A delivery of a
 * hook since unregistered keeps the hook's URL and id.
 *
 * @module
 */

import type { Hono } from "hono";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import { utcText } from "../components/LocalTime.tsx";
import CopyButton from "../islands/CopyButton.tsx";
import { statusText } from "../islands/DeliveriesLive.tsx";
import { HeadersTable } from "../components/HeadersTable.tsx";
import { wellFormed } from "../components/text.ts";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { ResponseDetail } from "../components/ResponseDetail.tsx";
import { PLATFORM_FAILURE } from "../lib/platform_failures.ts";
import { RedeliverForm, redeliverToken, redeliveryOf } from "./delivery_redeliver.tsx";
import { DeliveryForwards, forwardsOf, indexOf } from "./_delivery_forwards.tsx";
import { type ConsoleEnv, type Deps, html, layoutFrame } from "../lib/context.ts";
import { ended, onceToken, takeTurn } from "./_once.ts";
import type { AttemptInfo, Delivery } from "../log/mod.ts";

/** Characters of indentation the indented view may add beyond four times its payload (a small deep item's). */
const INDENT_SLACK = 20_000;

function verdictOf(delivery: Delivery, attempt: AttemptInfo | null): string {
  if (delivery.status === 401) return `not valid: ${delivery.reason ?? "refused"}`;
  if (attempt?.tenantId) return "valid";
  return delivery.status === 200 ? "valid" : "not checked (refused before the signature)";
}

function age(ms: number | undefined): string {
  if (ms === undefined) return "";
  const s = ms / 1000;
  return s < 0 ? `${(-s).toFixed(1)} s ahead of our clock` : `${s.toFixed(1)} s old on arrival`;
}

/** What the one-time token of a delivery's "Replay to receiver" button is for. */
function replayScope(deliveryId: string): string {
  return `replay\n${deliveryId}`;
}

/** Adds the delivery detail page, and its replay, to `app`. */
export function deliveryDetailRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.post("/deliveries/:id/replay", async (c) => {
    const delivery = await deps.deliveries.get(c.req.param("id"));
    const back = `/deliveries/${encodeURIComponent(c.req.param("id"))}`;
    const refuse = (message: string, status: 400 | 409 = 400) =>
      html(
        c,
        <Layout title="Replay refused" {...layoutFrame(c, deps)} error={message}>
          <p>
            <a href={back}>Back to the delivery</a>
          </p>
        </Layout>,
        status,
      );
    if (!delivery) {
      return html(
        c,
        <Layout
          title="Delivery not found"
          {...layoutFrame(c, deps)}
          error={`Nothing was replayed: no delivery has the id '${c.req.param("id").slice(0, 80)}'`}
        >
          <p>
            Deliveries are kept for a while only. <a href="/deliveries">All deliveries</a>
          </p>
        </Layout>,
        404,
      );
    }
    if (delivery.status !== 200 || delivery.reason) {
      return refuse("Only an accepted delivery can be replayed");
    }
    if (delivery.truncated) {
      return refuse("This delivery's payload was cut to fit the store: it cannot be sent again whole");
    }
    const hook = await deps.webhooks.findByID(delivery.hookId);
    const community = hook ? await deps.webhooks.findWebhookCommunity(hook) : null;
    if (!hook || !community?.clientSecret || !community.clientId || !deps.replayToReceiver) {
      return refuse("The hook or its community's client secret is gone: the replay could not be signed");
    }
    // A double click, a second tab or the POST sent again lands where the first did: the receiver gets one replay.
    const token = String((await c.req.parseBody()).formToken ?? "");
    const turn = await takeTurn(c, deps, token, replayScope(delivery.id));
    if ("location" in turn) return c.redirect(turn.location, 303);
    if ("refused" in turn) {
      return turn.refused === "busy"
        ? refuse(
          "The first send of this replay did not finish (it may still be under way, or its console stopped): look at the deliveries, and if it is not there, replay it again from this page",
          409,
        )
        : refuse(
          "Nothing was replayed: this button has expired or was shown to another session. Open the delivery again",
        );
    }
    const callback = typeof hook.entity?.callback === "string" ? hook.entity.callback : "";
    const prefix = `${deps.publicUrl}/hooks/`;
    const receiverId = callback.startsWith(prefix) ? callback.slice(prefix.length) : hook.id;
    const authorization = await signJiveExtn({
      clientId: community.clientId,
      jiveUrl: community.baseUrl ?? "",
      tenantId: community.tenantId,
      timestamp: Date.now(),
    }, community.clientSecret);
    const request = new Request(`${prefix}${receiverId}`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: `[${delivery.payload}]`,
    });
    const answer = await deps.replayToReceiver(receiverId, request).catch(async (err) => {
      await ended(deps, token); // the receiver failed (a 500 follows): the button may be used again
      throw err;
    });
    await answer.body?.cancel();
    if (answer.status !== 200) {
      await ended(deps, token); // nothing was accepted: the button may be used again
      return refuse(`The receiver answered ${answer.status}: see the log for the reason`);
    }
    const location = `/deliveries?hook=${encodeURIComponent(hook.id)}&notice=replayed`;
    await ended(deps, token, location);
    return c.redirect(location, 303);
  });

  app.get("/deliveries/:id", async (c) => {
    const delivery = await deps.deliveries.get(c.req.param("id"));
    if (!delivery) {
      return html(
        c,
        <Layout title="Delivery not found" {...layoutFrame(c, deps)}>
          <p>
            No delivery has that id (deliveries are kept for a while only). <a href="/deliveries">All deliveries</a>
          </p>
        </Layout>,
        404,
      );
    }
    const accepted = delivery.status === 200 && !delivery.reason;
    // The platform's own attempt that never reached this console's receiver: no answer of ours, no signature checked.
    const platformSide = delivery.reason?.startsWith(`${PLATFORM_FAILURE}: `) ?? false;
    const outcome = platformSide ? delivery.reason!.slice(PLATFORM_FAILURE.length + 2) : "";
    const attempt = delivery.attempt ?? await deps.deliveries.attemptOf(delivery);
    const hook = delivery.hookId ? await deps.webhooks.findByID(delivery.hookId) : null;
    const payload = wellFormed(delivery.payload); // a payload cut to fit may end inside a surrogate pair
    let pretty = payload;
    try {
      const indented = JSON.stringify(JSON.parse(payload), null, 2);
      // Deep nesting indents every line by twice its depth: past a few times the payload, it stays compact.
      if (indented.length <= 4 * payload.length + INDENT_SLACK) pretty = indented;
    } catch {
      // a cut payload or a body that is not JSON stays as it is
    }
    const index = indexOf(delivery.id);
    const forwards = accepted && delivery.postbackId && index !== null
      ? await forwardsOf(deps, delivery.postbackId, index)
      : null;
    const siblings = accepted && attempt?.itemCount && attempt.itemCount > 1
      ? Array.from({ length: attempt.itemCount }, (_, i) => delivery.id.replace(/-\d+$/, `-${i}`))
      : [];
    const redeliver = redeliveryOf(deps, delivery, attempt, hook) ? await redeliverToken(c, deps, delivery.id) : "";
    const replay = accepted && hook && !delivery.truncated ? await onceToken(c, deps, replayScope(delivery.id)) : "";
    return html(
      c,
      <Layout
        title={accepted ? "Delivery" : platformSide ? PLATFORM_FAILURE : "Rejected postback"}
        {...layoutFrame(c, deps)}
      >
        <dl class="facts" id="delivery-facts">
          <dt>{platformSide ? "Attempted" : "Received"}</dt>
          <dd>
            <time dateTime={delivery.receivedAt}>{utcText(delivery.receivedAt)}</time>
          </dd>
          <dt>{platformSide ? "Outcome" : "Our answer"}</dt>
          <dd id="delivery-status" class={accepted ? "status-good" : "status-bad"}>
            {platformSide
              ? `${wellFormed(outcome.charAt(0).toUpperCase() + outcome.slice(1))}`
              : statusText(delivery as Delivery & { seq: number })}
            {attempt ? `, ${platformSide ? "after" : "in"} ${attempt.durationMs.toFixed(1)} ms` : ""}
          </dd>
          <dt>Webhook</dt>
          <dd>
            {hook
              ? <a href={`/webhooks/${encodeURIComponent(hook.id)}`} class="id">{hook.id}</a>
              : delivery.hookId
              ? `${delivery.hookId} (no longer registered)`
              : "none found for this request"}
            {delivery.webhook && ` · ${delivery.webhook}`}
          </dd>
          {!platformSide && (
            <>
              <dt>Signature</dt>
              <dd id="delivery-verdict">{verdictOf(delivery, attempt)}</dd>
            </>
          )}
          {attempt?.tenantId && (
            <>
              <dt>Tenant</dt>
              <dd>{attempt.tenantId}</dd>
            </>
          )}
          {attempt?.clientId && (
            <>
              <dt>Client id</dt>
              <dd>{attempt.clientId}</dd>
            </>
          )}
          {attempt?.timestampAgeMs !== undefined && (
            <>
              <dt>Timestamp</dt>
              <dd>{age(attempt.timestampAgeMs)}</dd>
            </>
          )}
          {attempt?.itemCount !== undefined && (
            <>
              <dt>Items in the postback</dt>
              <dd>{attempt.itemCount}</dd>
            </>
          )}
        </dl>
        {siblings.length > 0 && (
          <nav aria-label="Items of this postback">
            <h2>Items of this postback</h2>
            <ol>
              {siblings.map((id) => (
                <li key={id}>{id === delivery.id ? id : <a href={`/deliveries/${id}`}>{id}</a>}</li>
              ))}
            </ol>
          </nav>
        )}
        {attempt && (
          <>
            <h2>{platformSide ? "Headers the platform sent" : "Request headers"}</h2>
            <HeadersTable id="delivery-headers" headers={attempt.headers} />
            {!platformSide && <p class="hint">The Authorization header is shown without its signature.</p>}
          </>
        )}
        <h2>{accepted ? "Item" : platformSide ? "Body the platform sent (first bytes)" : "Body (first bytes)"}</h2>
        {delivery.truncated && <p class="hint">The payload was cut to fit the store.</p>}
        <pre id="payload-pretty">{pretty}</pre>
        <details>
          <summary>Raw</summary>
          <Island name="CopyButton" props={{ target: "payload", label: "Copy the raw body" }}>
            <CopyButton target="payload" label="Copy the raw body" />
          </Island>
          <pre id="payload">{payload}</pre>
        </details>
        <ResponseDetail
          status={delivery.status}
          reason={delivery.reason}
          response={attempt?.response}
          platformSide={delivery.reason?.startsWith(PLATFORM_FAILURE) === true}
        />
        {forwards && delivery.hookId && <DeliveryForwards hookId={delivery.hookId} views={forwards} />}
        {redeliver && <RedeliverForm id={delivery.id} csrf={c.get("session")!.csrf} token={redeliver} />}
        {replay && (
          <form method="post" action={`/deliveries/${encodeURIComponent(delivery.id)}/replay`} id="replay">
            <Csrf token={c.get("session")!.csrf} />
            <input type="hidden" name="formToken" value={replay} />
            <p>
              <button type="submit">Replay to receiver</button>{" "}
              Sends this item to this console's receiver again, signed with the community's secret, as a new attempt
              marked as a replay.
            </p>
          </form>
        )}
        <p>
          <a href="/deliveries">All deliveries</a>
        </p>
      </Layout>,
    );
  });
}
