/**
 * "Redeliver" (GitHub's): a delivery of a sandbox hook, failed or not, sent
 * again by the platform itself to the hook's current callback, the same
 * body under a fresh signature. Unlike "Replay to receiver", it goes the
 * platform's way, so it works for a platform-side failure too (a callback
 * that could not be reached or answered an error) and for a postback our
 * receiver refused. The platform's postback is named by its hook and the
 * timestamp of its signature, which every logged attempt keeps.
 *
 * The button's form carries a one-time token for its delivery: a double
 * click, or the same POST sent again, lands where the first one did, with
 * its notice, and the platform sends the postback once.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { VNode } from "preact";
import type { Webhook } from "../../webhooks/mod.ts";
import { Csrf } from "../components/Csrf.tsx";
import { Layout } from "../components/Layout.tsx";
import { type ConsoleEnv, type Deps, describeError, html, layoutFrame } from "../lib/context.ts";
import { ended, onceToken, takeTurn } from "./_once.ts";
import type { AttemptInfo, Delivery } from "../log/mod.ts";
import { signedAt } from "../lib/platform_failures.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";

/** What names a delivery's postback on the platform, when the platform (the sandbox) can send it again. */
export function redeliveryOf(
  deps: Deps,
  delivery: Delivery,
  attempt: AttemptInfo | null,
  hook: Webhook | null,
): { platformId: string; timestamp: number } | null {
  if (!deps.sandboxRedeliver || !hook || hook.tenantId !== SANDBOX_COMMUNITY.tenantId) return null;
  // A replay was signed by this console, not sent by the platform.
  if (delivery.replay || hook.entity?.id === undefined) return null;
  const timestamp = signedAt(attempt?.headers.authorization);
  return timestamp === null ? null : { platformId: String(hook.entity.id), timestamp };
}

/** The message of a Redeliver whose form token is missing, made up, another session's or another delivery's. */
const REDELIVER_TOKEN_REFUSED =
  "Nothing was redelivered: this button has expired or was shown to another session. Open the delivery again";

/** What the one-time token of a delivery's Redeliver form is for. */
function redeliverScope(id: string): string {
  return `redeliver\n${id}`;
}

/** The one-time token of a delivery's Redeliver form, for the session `c` answers. */
export function redeliverToken(c: Context<ConsoleEnv>, deps: Deps, id: string): Promise<string> {
  return onceToken(c, deps, redeliverScope(id));
}

/** The Redeliver button of a delivery's page. */
export function RedeliverForm({ id, csrf, token }: { id: string; csrf: string; token: string }): VNode {
  return (
    <form method="post" action={`/deliveries/${encodeURIComponent(id)}/redeliver`} id="redeliver">
      <Csrf token={csrf} />
      <input type="hidden" name="formToken" value={token} />
      <p>
        <button type="submit">Redeliver</button>{" "}
        Asks the platform to send this postback again to the hook's callback, signed anew: failed or not, it is
        delivered the platform's way, as a new delivery.
      </p>
    </form>
  );
}

/** Adds `POST /deliveries/:id/redeliver` to `app`, and the redirect of a GET of it or of Replay's URL. */
export function redeliverRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  // The address bar after a refused Redeliver or Replay (or a bookmark): the delivery's page rather than a 404.
  app.get(
    "/deliveries/:id/:action{(?:redeliver|replay)}",
    (c) => c.redirect(`/deliveries/${encodeURIComponent(c.req.param("id"))}`, 302),
  );

  app.post("/deliveries/:id/redeliver", async (c) => {
    const id = c.req.param("id");
    const body = await c.req.parseBody();
    const token = typeof body.formToken === "string" ? body.formToken : "";
    const refuse = (message: string, status: 400 | 404 | 409 | 502 = 400) =>
      html(
        c,
        <Layout title="Redelivery refused" {...layoutFrame(c, deps)} error={message}>
          <p>
            <a href={`/deliveries/${encodeURIComponent(id)}`}>Back to the delivery</a>
          </p>
        </Layout>,
        status,
      );
    const delivery = await deps.deliveries.get(id);
    if (!delivery) return refuse("No delivery has that id (deliveries are kept for a while only)", 404);
    const attempt = delivery.attempt ?? await deps.deliveries.attemptOf(delivery);
    const hook = delivery.hookId ? await deps.webhooks.findByID(delivery.hookId) : null;
    if (!hook) {
      return refuse("The hook of this delivery is no longer registered: there is nothing to redeliver to", 404);
    }
    const target = redeliveryOf(deps, delivery, attempt, hook);
    if (!target) {
      return refuse(
        "Only a postback the sandbox community sent can be redelivered from here (a replay, or a postback whose request was not logged, cannot)",
      );
    }
    // The first submission of this form goes ahead; a second one lands where the first did, once it has.
    const turn = await takeTurn(c, deps, token, redeliverScope(id));
    if ("location" in turn) return c.redirect(turn.location, 303);
    if ("refused" in turn) {
      return turn.refused === "busy"
        ? refuse(
          "The first ask for this redelivery did not finish (it may still be under way, or its console stopped): look at the deliveries, and if it is not there, ask again from this page",
          409,
        )
        : refuse(REDELIVER_TOKEN_REFUSED);
    }
    let sent;
    try {
      sent = await deps.sandboxRedeliver!(target.platformId, target.timestamp);
    } catch (err) {
      await ended(deps, token); // nothing was sent: the form may be sent again
      if (err instanceof RangeError) {
        return refuse(`The platform cannot redeliver it: ${err.message.replace(/^Cannot redeliver: /, "")}`, 404);
      }
      if (err instanceof TypeError) {
        return refuse(`The platform cannot redeliver it: ${err.message.replace(/^Cannot redeliver: /, "")}`, 409);
      }
      return refuse(`The redelivery could not be sent: ${describeError(err)}`, 502);
    }
    // Shown after a redirect: a reload never sends it again.
    const ok = sent.status >= 200 && sent.status <= 299;
    const notice = ok ? "redelivered" : "redelivery-failed";
    const location = `/deliveries?hook=${encodeURIComponent(hook.id)}&notice=${notice}`;
    await ended(deps, token, location);
    return c.redirect(location, 303);
  });
}
