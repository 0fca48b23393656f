/**
 * "Send test event" on a sandbox hook's page: the sandbox posts one event to
 * the hook's callback, once per press (a double click, a second tab or the
 * POST sent again lands where the first did), and the page says what the
 * callback answered, and how the forward to the user's app went.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { Webhook } from "../../webhooks/mod.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { type ConsoleEnv, type Deps, describeError } from "../lib/context.ts";
import { settleForwards } from "./_delivery_forwards.tsx";
import { ended, takeTurn } from "./_once.ts";
import { testScope, type WebhookPageOptions } from "./_webhook_page.tsx";

/** What the route shares with the other routes of a webhook's page. */
export interface PageParts {
  detailPage: (c: Context<ConsoleEnv>, hook: Webhook, options?: WebhookPageOptions) => Promise<Response>;
  gone: (c: Context<ConsoleEnv>, what?: string) => Response | Promise<Response>;
  pathOf: (id: string) => string;
}

/** Adds `POST /webhooks/:id/test` to `app`. */
export function testEventRoute(app: Hono<ConsoleEnv>, deps: Deps, { detailPage, gone, pathOf }: PageParts): void {
  app.post("/webhooks/:id/test", async (c) => {
    const hook = await deps.webhooks.findByID(c.req.param("id"));
    if (!hook) return gone(c, "The webhook is unregistered: no test event was sent.");
    const platformId = hook.entity?.id;
    if (!deps.sandboxTest || hook.tenantId !== SANDBOX_COMMUNITY.tenantId || platformId === undefined) {
      return await detailPage(c, hook, { error: "Test events go only to hooks of the sandbox community", status: 400 });
    }
    // Refused, the page is shown by a redirect too: a reload must not post the form again.
    const disabled = (notice: string) => c.redirect(`${pathOf(hook.id)}?notice=${notice}`, 303);
    if (hook.entity?.enabled === false) return disabled("test-disabled");
    // A double click, a second tab or the POST sent again lands where the first did: the platform sends one event.
    const token = String((await c.req.parseBody()).formToken ?? "");
    const turn = await takeTurn(c, deps, token, testScope(hook.id));
    if ("location" in turn) return c.redirect(turn.location, 303);
    if ("refused" in turn) {
      return await detailPage(c, hook, {
        error: turn.refused === "busy"
          ? "The first send of this test event did not finish (it may still be under way, or its console stopped): look at the hook's deliveries, and if it is not there, send it again from this page"
          : "No test event was sent: this button has expired or was shown to another session. Send it again from this page",
        status: turn.refused === "busy" ? 409 : 400,
      });
    }
    const started = Date.now();
    let sent;
    try {
      sent = await deps.sandboxTest(String(platformId));
    } catch (err) {
      await ended(deps, token); // nothing was sent: the button may be used again
      // The platform has no such hook: unregistered meanwhile (another tab) when its record is gone too.
      if (err instanceof RangeError && !await deps.webhooks.findByID(hook.id).catch(() => hook)) {
        return gone(c, "The webhook is unregistered: no test event was sent.");
      }
      return await detailPage(c, hook, {
        error: err instanceof RangeError
          ? "No test event was sent: the platform has no such hook any more (it was deleted there). Reconcile the community to remove this record."
          : `The test event could not be sent: ${describeError(err)}`,
      });
    }
    // Whatever the outcome, the page is shown by a redirect: a reload must not send the test event again.
    // An attempt the platform could not deliver names when it started: the page gives the reason logged since.
    const failed = sent.some((d) => d.status === 0);
    const location = sent.length === 0
      ? `${pathOf(hook.id)}?notice=test-disabled-platform`
      : `${pathOf(hook.id)}?notice=triggered&answer=${failed ? `0&at=${started}` : sent[0].status}`;
    // The page says how the test event's forward went too: the worker attempts it right after the receiver's commit.
    // Only a wait for the page's sake: should it fail, the event is sent all the same, and a second submission lands
    // on its outcome instead of waiting for an end never recorded and being told the event is being sent.
    if (sent.length > 0 && !failed) await settleForwards(deps, hook.id, started).catch(() => {});
    await ended(deps, token, location);
    return c.redirect(location, 303);
  });
}
