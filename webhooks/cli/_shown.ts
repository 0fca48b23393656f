// How the command line shows a URL that may carry credentials, in tables and
// JSON alike: a callback such as `https://user:secret@app.example/cb` sends
// its password as Basic auth, so the password is a secret and never printed.

import { hideUserInfo } from "../_util.ts";
import type { Orphan, PendingRegistration, ReconcileReport, Webhook, WebhookEntity } from "../types.ts";

/**
 * A URL as the command line shows it, as the console's pages do: a password
 * in it (`https://user:pass@host/`) shows as `***` and the user name stays; a
 * user name that stands alone (`https://TOKEN@host/`, how tokens are often
 * passed) shows as `***`; the rest as given. One no parser reads shows `***`
 * from its scheme's end to its last `@`.
 */
export function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  // No parser reads it, so its user info cannot be cut out exactly: from the scheme's end to the last `@`.
  if (parsed === null) return hideUserInfo(url);
  if (parsed.password === "" && parsed.username === "") return url;
  if (parsed.password === "") parsed.username = "***";
  else parsed.password = "***";
  return parsed.href;
}

/** `value` through {@linkcode shownUrl} when it is a string; else as it is. */
function shownField<T>(value: T): T {
  return (typeof value === "string" ? shownUrl(value) : value) as T;
}

/** A platform entity whose URLs (callback, object, self link) show as {@linkcode shownUrl} has them. */
export function shownEntity(entity: WebhookEntity): WebhookEntity {
  if (typeof entity !== "object" || entity === null) return entity;
  const shown: WebhookEntity = { ...entity };
  for (const field of ["callback", "object"]) if (field in entity) shown[field] = shownField(entity[field]);
  const self = entity.resources?.self;
  if (typeof self === "object" && self !== null && "ref" in self) {
    shown.resources = { ...entity.resources, self: { ...self, ref: shownField(self.ref) } };
  }
  return shown;
}

/** A webhook record as the command line shows it: its entity as {@linkcode shownEntity}. */
export function shownHook(hook: Webhook): Webhook {
  return typeof hook === "object" && hook !== null && "entity" in hook
    ? { ...hook, entity: shownEntity(hook.entity) }
    : hook;
}

/** A pending registration as the command line shows it: its callback and object as {@linkcode shownUrl}. */
function shownPending(pending: PendingRegistration | null): PendingRegistration | null {
  if (pending === null) return null;
  return { ...pending, callback: shownField(pending.callback), object: shownField(pending.object) };
}

/** A reconcile report as the command line shows it: each hook and registration in it as above. */
export function shownReport(
  report: ReconcileReport,
): Pick<ReconcileReport, "matched" | "orphans" | "dangling"> {
  return {
    matched: report.matched.map(shownHook),
    orphans: report.orphans.map((o: Orphan) => ({ entity: shownEntity(o.entity), pending: shownPending(o.pending) })),
    dangling: report.dangling.map(shownHook),
  };
}
