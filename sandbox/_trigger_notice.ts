/**
 * What the sandbox page says after a Trigger: how many postbacks were sent,
 * how many failed, and why each failed one did, in the words of the
 * console's "Send test event". It rides the page's one-time notice cookie
 * (the hooks' ids, statuses and reasons; never a URL, a secret or a
 * signature), kept under a browser's cookie size: failures that do not fit
 * are counted, not listed.
 *
 * @module
 */

import { POSTBACK_TIMEOUT_MS } from "./_trigger.ts";
import type { Delivery } from "./_trigger.ts";

/** At most this many UTF-16 units of a reason are shown, then "…". */
const REASON_MAX = 250;
/** The cookie's value, encoded, stays under this (a browser keeps 4,096 bytes a cookie, its name and flags included). */
const COOKIE_MAX = 3_600;

/** One failed postback as the notice keeps it: the hook's id, the status (0: not reached) and why. */
export type Failure = [webhookId: string, status: number, why: string];

/** A trigger's outcome, as the page after its redirect shows it. */
export interface TriggerNotice {
  /** How many postbacks were sent. */
  sent: number;
  /** How many of them failed. */
  failed: number;
  /** The failures listed (all of them, or those that fitted the cookie). */
  failures: Failure[];
}

/** `text`, at most {@linkcode REASON_MAX} units (never half a surrogate pair), then "…". */
function cut(text: string): string {
  if (text.length <= REASON_MAX) return text;
  const end = /[\uD800-\uDBFF]/.test(text[REASON_MAX - 1]) ? REASON_MAX - 1 : REASON_MAX;
  return `${text.slice(0, end)}…`;
}

/** Whether a delivery failed: not reached, or answered other than 2xx. */
export function failedDelivery(d: Delivery): boolean {
  return d.status < 200 || d.status > 299;
}

/** The notice cookie's value for a trigger's deliveries: `sent.failed`, then the failures that fit. */
export function noticeCookie(delivered: Delivery[]): string {
  const failed = delivered.filter(failedDelivery);
  const head = `${delivered.length}.${failed.length}`;
  const kept: Failure[] = [];
  for (const d of failed) {
    const why = d.status !== 0
      ? ""
      : cut(d.cause ?? (d.error?.startsWith("No answer") ? `no answer within ${POSTBACK_TIMEOUT_MS / 1000} s` : ""));
    const next = [...kept, [d.webhookId, d.status, why] as Failure];
    if (encodeURIComponent(`${head}|${JSON.stringify(next)}`).length > COOKIE_MAX) break;
    kept.push(next[next.length - 1]);
  }
  return kept.length ? `${head}|${JSON.stringify(kept)}` : head;
}

/**
 * The notice a page at `?triggered=N&failed=M` shows from its cookie, or `undefined` when the cookie is not this
 * address's (a reload, Back, or the address opened again: none). A cookie that does not read is shown as counts only.
 */
export function readNotice(
  cookie: string | undefined,
  triggered: string | undefined,
  failed: string | undefined,
): TriggerNotice | undefined {
  if (cookie === undefined || triggered === undefined) return undefined;
  const bar = cookie.indexOf("|");
  const head = bar < 0 ? cookie : cookie.slice(0, bar);
  if (head !== `${triggered}.${failed ?? "0"}`) return undefined;
  let failures: Failure[] = [];
  try {
    const list: unknown = bar < 0 ? [] : JSON.parse(cookie.slice(bar + 1));
    if (Array.isArray(list)) {
      failures = list.filter((f): f is Failure =>
        Array.isArray(f) && typeof f[0] === "string" && Number.isInteger(f[1]) && typeof f[2] === "string"
      ).map(([id, status, why]) => [id, status, cut(why)]);
    }
  } catch {
    failures = [];
  }
  return { sent: Number(triggered), failed: Number(failed ?? 0), failures };
}

/** Why a failed postback failed, in the words of the console's "Send test event". */
export function failureWords([, status, why]: Failure): string {
  return status === 0
    ? `the platform could not reach the callback${why ? ` (${why})` : ""}.`
    : `the platform posted it, and the callback refused it with ${status}.`;
}
