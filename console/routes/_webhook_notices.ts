/**
 * What a webhook's page says above its content after a redirect: the
 * outcome of a test event, a refused one, a form sent twice, and the
 * warning after registering a callback the internet cannot reach
 * (_webhook_page.tsx).
 *
 * @module
 */

import type { Context } from "hono";
import type { DeliveryView } from "../log/mod.ts";
import { type ConsoleEnv, type Deps, noticeOf } from "../lib/context.ts";
import { privateCallback } from "./_webhook_parts.tsx";

/** What the platform said of a callback it could not reach, logged as the hook's delivery. */
const UNREACHED = /^Platform-side failure: the platform could not reach the callback (\(.*\))$/s;

/**
 * Notices of this page's own redirects (`?notice=...`), beside the shared
 * ones; a test event refused is an error, and one the platform could not
 * deliver (`answer=0`) says why as its attempt, the hook's newest delivery
 * if logged since the attempt started (`at`), was logged (never text from
 * the URL).
 */
export function pageNotice(
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
export async function callbackWarning(
  c: Context<ConsoleEnv>,
  deps: Deps,
  callback: string,
): Promise<string | undefined> {
  if (c.req.query("notice") !== "registered" || !callback) return undefined;
  const reason = await privateCallback(callback, deps.publicUrl);
  if (!reason) return undefined;
  // The sandbox's postbacks go through the same address check as every outbound call: say what it will do.
  const sandbox = deps.allowPrivateNetwork
    ? "Only a platform on this network, such as this console's sandbox, can post to it."
    : "This console's sandbox will not post to it either (it refuses such addresses unless the console runs with ALLOW_PRIVATE_NETWORK=1).";
  return `Warning: the callback is on an address a platform on the internet cannot reach (${reason}). ${sandbox}`;
}
