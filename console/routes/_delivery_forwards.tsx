/**
 * A delivery's forwards to the hook's "Forward to" destinations
 * (docs/relay.md): each destination's state, its attempts (status, time,
 * duration) and the next one, read through `relay.forwards` and
 * `relay.attempts`. Shown on a delivery's page, and in short on the hook's
 * page after Send test event. No secret is read or shown.
 *
 * @module
 */

import type { VNode } from "preact";
import type { Destination, RelayAttempt, RelayForward } from "../../webhooks/mod.ts";
import { StoredTime } from "../components/LocalTime.tsx";
import type { Deps } from "../lib/context.ts";
import { shownUrl } from "../lib/shown_url.ts";

/** A forward with its destination's URL as shown (`null` once removed) and its attempts. */
export interface ForwardView {
  forward: RelayForward;
  url: string | null;
  attempts: RelayAttempt[];
}

/** The item index of a delivery id (`{base}-{index}`), or `null`. */
export function indexOf(deliveryId: string): number | null {
  const match = /-(\d+)$/.exec(deliveryId);
  return match ? Number(match[1]) : null;
}

/**
 * The forwards of one item of a postback, with their attempts; `destinations` is the relay's list when the page
 * read it already (a page lists the destinations once).
 */
export async function forwardsOf(
  deps: Deps,
  postbackId: string,
  index: number,
  destinations?: Destination[],
): Promise<ForwardView[]> {
  const forwards = await deps.relay.forwards(postbackId, index);
  const urls = new Map((destinations ?? await deps.relay.destinations.list()).map((d) => [d.id, shownUrl(d.url)]));
  return await Promise.all(forwards.map(async (forward) => ({
    forward,
    url: forward.destinationId === null ? null : urls.get(forward.destinationId) ?? null,
    attempts: await deps.relay.attempts(forward.entryId),
  })));
}

/**
 * Waits up to `timeoutMs` for the forwards of the hook's newest delivery
 * since `since` (ms) to have had their first attempt (the worker delivers
 * right after the receiver's commit), so that the page after Send test event
 * can say how the forward went. Resolves at once when the hook has no
 * enabled destination.
 */
export async function settleForwards(deps: Deps, hookId: string, since: number, timeoutMs = 2_000): Promise<void> {
  const destinations = await deps.relay.destinations.list();
  if (!destinations.some((d) => d.enabled && (d.hookIds === undefined || d.hookIds.includes(hookId)))) return;
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const [newest] = await deps.deliveries.list({ hookId, limit: 1 });
    const index = newest ? indexOf(newest.id) : null;
    if (newest?.postbackId && index !== null && Date.parse(newest.receivedAt) >= since - 1_000) {
      const forwards = await deps.relay.forwards(newest.postbackId, index);
      if (forwards.length > 0 && forwards.every((f) => f.state !== "pending" || f.attempts > 0)) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function answerOf(attempt: RelayAttempt): string {
  return attempt.status === 0 ? `no answer: ${attempt.error ?? "unknown"}` : `HTTP ${attempt.status}`;
}

function stateOf(view: ForwardView): string {
  const { state, nextAttemptAt } = view.forward;
  if (state === "delivered") return "delivered";
  if (state === "dead") return "gave up (a dead letter: redeliver it from the Forward to page)";
  if (view.forward.destinationId === null) return "waiting for a worker to forward it";
  return nextAttemptAt === null ? "waiting" : "waiting for the next attempt";
}

/** One line of how a forward went: its state and its last attempt. */
export function forwardLine(view: ForwardView): string {
  const last = view.attempts.at(-1);
  const to = view.url ?? "a destination since removed";
  return `${to}: ${stateOf(view)}${last ? `, last attempt ${answerOf(last)} in ${last.durationMs} ms` : ""}`;
}

/** The section of a delivery's page: each forward, its attempts and its next attempt. */
export function DeliveryForwards({ hookId, views }: { hookId: string; views: ForwardView[] }): VNode {
  const forwardPage = `/webhooks/${encodeURIComponent(hookId)}/forward`;
  return (
    <section id="delivery-forwards" aria-labelledby="delivery-forwards-title">
      <h2 id="delivery-forwards-title">Forwarded to your app</h2>
      {views.length === 0 && (
        <p class="hint" id="delivery-forwards-none">
          Not forwarded: the hook had no enabled destination when this arrived (a disabled one is not sent what arrives
          meanwhile), or the destination was removed since (its forwards not delivered go with it).{" "}
          <a href={forwardPage}>Forward to…</a>
        </p>
      )}
      {views.map((view) => (
        <div class="forward" data-entry={view.forward.entryId} key={view.forward.entryId}>
          <h3>
            <code>{view.url ?? "a destination since removed"}</code>
          </h3>
          <p class={view.forward.state === "dead" ? "status-bad" : undefined}>
            <span class="forward-state">{capitalized(stateOf(view))}</span>, {view.forward.attempts}{" "}
            {view.forward.attempts === 1 ? "attempt" : "attempts"}
            {view.attempts.length > view.forward.attempts && ( // Redeliver starts the count again; the table lists all
              <>{" "}since it was sent again ({view.attempts.length} in all)</>
            )}
            {view.forward.state === "pending" && view.forward.nextAttemptAt !== null && (
              <>
                ; next attempt <StoredTime ms={view.forward.nextAttemptAt} />
              </>
            )}. <code class="id">webhook-id: {view.forward.entryId}</code>
          </p>
          {view.attempts.length > 0 && (
            <table class="forward-attempts">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Answer</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {view.attempts.map((attempt, i) => (
                  <tr key={i}>
                    <td data-label="Time">
                      <StoredTime ms={attempt.time} />
                    </td>
                    <td
                      data-label="Answer"
                      class={attempt.status >= 200 && attempt.status < 300 ? "status-good" : "status-bad"}
                    >
                      {answerOf(attempt)}
                    </td>
                    <td data-label="Duration">{attempt.durationMs} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
      {views.length > 0 && (
        <p>
          <a href={forwardPage} id="delivery-forward-link">This hook's destinations and dead letters</a>
        </p>
      )}
    </section>
  );
}

/** What the hook's page shows of forwarding: its destinations and, after a test event, how its forward went. */
export interface HookForwarding {
  destinations: number;
  enabled: number;
  /** The newest delivery's forwards, after Send test event. */
  test: ForwardView[] | null;
}

/** The hook's forwarding, with the forwards of `newest` (the test event's delivery) when given. */
export async function hookForwarding(
  deps: Deps,
  hookId: string,
  newest: { id: string; postbackId?: string } | undefined,
): Promise<HookForwarding> {
  const all = await deps.relay.destinations.list();
  const mine = all.filter((d) => d.hookIds === undefined || d.hookIds.includes(hookId));
  const index = newest ? indexOf(newest.id) : null;
  const test = newest?.postbackId && index !== null && mine.length > 0
    ? await forwardsOf(deps, newest.postbackId, index, all)
    : null;
  return { destinations: mine.length, enabled: mine.filter((d) => d.enabled).length, test };
}

/** The hook page's "Forward to your app" section. */
export function ForwardSection({ hookId, forwarding }: { hookId: string; forwarding: HookForwarding }): VNode {
  const { destinations, enabled, test } = forwarding;
  return (
    <section id="forwarding" aria-labelledby="forwarding-title">
      <h2 id="forwarding-title">Forward to your app</h2>
      {test && test.length > 0 && (
        <ul id="test-forwards">
          {test.map((view) => <li key={view.forward.entryId}>Test event forwarded to {forwardLine(view)}</li>)}
        </ul>
      )}
      <p id="forward-summary">
        {destinations === 0
          ? "Postbacks of this hook are not forwarded anywhere yet."
          : `Postbacks of this hook are forwarded to ${enabled} of ${destinations} ${
            destinations === 1 ? "destination" : "destinations"
          } (the enabled ones), signed with Standard Webhooks.`}{" "}
        <a href={`/webhooks/${encodeURIComponent(hookId)}/forward`} id="forward-link">
          {destinations === 0 ? "Forward to your app…" : "Destinations and dead letters"}
        </a>
      </p>
    </section>
  );
}
