/**
 * Builds the platform's activity-stream postbacks and delivers them to the
 * hooks' callback URLs, signed with JiveEXTN.
 *
 * @module
 */

import { signJiveExtn } from "../webhooks/mod.ts";
import { isSystemEvent } from "./_events.ts";
import type { HookRecord } from "./_store.ts";
import type { SentPostback } from "./_sent.ts";

/** The one user of the sandbox community. */
export const SANDBOX_USER_NAME = "Sandbox User";
/** Its subject (`sub`) in tokens and userinfo. */
export const SANDBOX_USER_SUB = "sandbox-user";
/** Its person id in URIs. */
const PERSON_ID = 1;
/** How long a postback may take before it counts as failed. */
export const POSTBACK_TIMEOUT_MS = 10_000;

const DEFAULT_VERBS: Record<string, string> = {
  user_account: "jive:user_account_created",
  user_session: "jive:user_session_login",
  user_membership: "jive:user_membership_added",
  social_group: "jive:social_group_created",
  webhook: "jive:webhook_created",
};

/** The verb sent for an event when none is asked for. */
export function defaultVerb(event: string): string {
  return DEFAULT_VERBS[event] ?? "jive:created";
}

/** The shape of one postback array element. */
export interface Postback {
  /** The hook's `resources.self.ref`. */
  webhook: string;
  /** The activity-stream entry. */
  activity: Record<string, unknown>;
}

function actor(base: string): Record<string, unknown> {
  return {
    objectType: "jive:person",
    id: `${base}/api/core/v3/people/${PERSON_ID}`,
    displayName: SANDBOX_USER_NAME,
    url: `${base}/people/${SANDBOX_USER_SUB}`,
  };
}

function verbText(verb: string): string {
  return verb.replace(/^jive:/, "").replaceAll("_", " ");
}

/** Builds the activity a hook receives for one event. */
export function buildPostback(
  hook: HookRecord,
  selfRef: string,
  event: string,
  verb: string,
  now: number,
  contentId: number,
): Postback {
  const base = hook.baseUrl;
  const published = new Date(now).toISOString();
  let object: Record<string, unknown>;
  let target: Record<string, unknown> | undefined;
  let title: string;
  if (!isSystemEvent(event)) {
    const url = `${base}/${event}s/${contentId}`;
    object = {
      objectType: `jive:${event}`,
      id: `${base}/api/core/v3/contents/${contentId}`,
      url,
      displayName: `Sandbox ${event} ${contentId}`,
      summary: `A ${event} made in the sandbox community`,
      published,
      updated: published,
    };
    target = {
      objectType: "jive:space",
      id: hook.object,
      displayName: "Sandbox space",
    };
    title = `${SANDBOX_USER_NAME} ${verbText(verb)} ${object.displayName}`;
  } else if (event === "social_group") {
    object = {
      objectType: "jive:socialgroup",
      id: `${base}/api/core/v3/places/${contentId}`,
      url: `${base}/groups/sandbox-group-${contentId}`,
      displayName: `Sandbox group ${contentId}`,
    };
    title = `${SANDBOX_USER_NAME}: ${verbText(verb)}`;
  } else if (event === "webhook") {
    object = { objectType: "jive:webhook", id: selfRef };
    title = `${SANDBOX_USER_NAME}: ${verbText(verb)}`;
  } else {
    object = actor(base);
    title = `${SANDBOX_USER_NAME}: ${verbText(verb)}`;
  }
  const activity: Record<string, unknown> = {
    verb,
    object,
    actor: actor(base),
    content: `<p>${title}</p>`,
    title,
    url: typeof object.url === "string" ? object.url : base,
    published,
    provider: { objectType: "jive:instance", url: base },
  };
  if (target) activity.target = target;
  return { webhook: selfRef, activity };
}

/** How one delivery went; never holds a secret. */
export interface Delivery {
  /** The hook's id. */
  webhookId: string;
  /** Where the postback went, as {@linkcode shownCallback} shows it. */
  callback: string;
  /** The event it reported. */
  event: string;
  /** The activity's verb. */
  verb: string;
  /** The receiver's HTTP status; 0 when it could not be reached. */
  status: number;
  /** Why the postback failed, when `status` is 0. */
  error?: string;
  /**
   * The timestamp of the postback's signature (ms), which names it for a
   * redelivery (`Sandbox.redeliver`) with `webhookId`.
   */
  timestamp?: number;
  /**
   * What the failed call reported, when `status` is 0 and it said more than
   * `error` (such as `Connection refused`, or a refused private address);
   * never the callback URL.
   */
  cause?: string;
}

/**
 * A callback URL as the sandbox shows it (its index page is open to anyone,
 * and so is a trigger's summary): the URL as the postback goes to it, with
 * its user name and password and the values of its query hidden, as any of
 * them may be a secret.
 */
export function shownCallback(callback: string): string {
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return "[not a URL]";
  }
  // From the parsed URL, as the postback is sent: the text as registered may spell the same URL other ways
  // (`http:\\user:pw@host`, a leading space) that no pattern on the text would catch.
  const user = url.username || url.password ? "[hidden]@" : "";
  const query = url.search.slice(1).split("&").filter(Boolean)
    .map((pair) => pair.includes("=") ? `${pair.slice(0, pair.indexOf("="))}=[hidden]` : "[hidden]");
  return `${url.protocol}//${user}${url.host}${url.pathname}${query.length ? `?${query.join("&")}` : ""}`;
}

/** What a failed postback's fetch said, without the URL (its query may hold anything). */
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return "";
  const inner = error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
  return inner
    .replace(/error sending request for url \([^)]*\):\s*/gi, "")
    .replace(/https?:\/\/\S+/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);
}

/** What is needed to sign and send postbacks. */
export interface DeliveryContext {
  fetch: typeof fetch;
  now: () => number;
  clientId: string;
  clientSecret: string;
  /** Keeps each postback before it is sent, for redelivery. */
  keep?: (webhookId: string, timestamp: number, sent: SentPostback) => Promise<void>;
}

/** POSTs one postback; reports the status, 0 on a network failure. */
export async function deliver(
  ctx: DeliveryContext,
  hook: HookRecord,
  event: string,
  postback: Postback,
): Promise<Delivery> {
  const activity = postback.activity;
  const report: Delivery = {
    webhookId: hook.id,
    callback: shownCallback(hook.callback),
    event,
    verb: String(activity.verb),
    status: 0,
  };
  try {
    const timestamp = ctx.now();
    const authorization = await signJiveExtn({
      clientId: ctx.clientId,
      jiveUrl: hook.baseUrl,
      tenantId: hook.tenantId,
      timestamp,
    }, ctx.clientSecret);
    const body = JSON.stringify([postback]);
    report.timestamp = timestamp;
    await ctx.keep?.(hook.id, timestamp, { event, verb: report.verb, body, sentAt: Date.now() });
    const response = await ctx.fetch(hook.callback, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Tenant-ID": hook.tenantId,
        "Authorization": authorization,
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(POSTBACK_TIMEOUT_MS),
    });
    await response.body?.cancel();
    report.status = response.status;
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    report.error = timedOut ? `No answer within ${POSTBACK_TIMEOUT_MS} ms` : "The callback could not be reached";
    const cause = timedOut ? "" : causeOf(error);
    if (cause) report.cause = cause;
  }
  return report;
}
