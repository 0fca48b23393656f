/**
 * The platform's event catalog: every event a hook can subscribe to, with
 * what it reports and an example postback built exactly as the sandbox
 * sends it (same activity shape, verb and headers), so a developer can
 * write a receiver before anything happened in a community.
 *
 * @module
 */

import { CONTENT_EVENTS, isSystemEvent, SYSTEM_EVENTS } from "./_events.ts";
import { buildPostback, defaultVerb, type Postback } from "./_trigger.ts";

/** One event of the catalog. */
export interface CatalogEvent {
  /** The event's name, as `events` of a registration takes it. */
  name: string;
  /** `"content"` (needs `object`, a place URI) or `"system"` (no `object`; not mixed with content events). */
  kind: "content" | "system";
  /** What happens on the platform for a hook to receive it. */
  description: string;
  /** The verb the sandbox sends by default. */
  verb: string;
  /** Other verbs the platform may send for it. */
  otherVerbs: string[];
}

const DESCRIPTIONS: Record<string, string> = {
  document: "A document in the place is created, edited, commented on, liked or marked with an outcome.",
  file: "A file is uploaded to the place, replaced, commented on or liked.",
  discussion: "A discussion (question or thread) is started in the place, replied to, edited or answered.",
  post: "A blog post is published in the place, edited, commented on or liked.",
  task: "A task of the place is created, assigned, completed or changed.",
  dm: "A direct message is sent to people of the place, or replied to.",
  url: "A link (bookmark) is shared in the place or changed.",
  update: "A status update is posted in the place, replied to or liked.",
  idea: "An idea is submitted in the place, voted on, commented on or changes stage.",
  user_account: "A user account of the community is created, changed, disabled or deleted.",
  user_session: "A user signs in to or out of the community.",
  user_membership: "A user joins or leaves a group or place of the community.",
  social_group: "A social group of the community is created, changed or deleted.",
  webhook: "A webhook of the community is created, changed or deleted (by any client).",
};

const CONTENT_VERBS = ["jive:modified", "jive:commented", "jive:replied", "jive:liked", "jive:outcome_set"];
const SYSTEM_VERBS: Record<string, string[]> = {
  user_account: ["jive:user_account_modified", "jive:user_account_deleted"],
  user_session: ["jive:user_session_logout"],
  user_membership: ["jive:user_membership_removed"],
  social_group: ["jive:social_group_modified", "jive:social_group_deleted"],
  webhook: ["jive:webhook_modified", "jive:webhook_deleted"],
};

/** Every event a hook can subscribe to: content events first, then system events. */
export function eventCatalog(): CatalogEvent[] {
  return [...CONTENT_EVENTS, ...SYSTEM_EVENTS].map((name) => {
    const system = isSystemEvent(name);
    return {
      name,
      kind: system ? "system" : "content",
      description: DESCRIPTIONS[name] ?? "An event of the platform.",
      verb: defaultVerb(name),
      otherVerbs: system ? SYSTEM_VERBS[name] ?? [] : CONTENT_VERBS,
    };
  });
}

/**
 * The postback body (a JSON array of one `{ webhook, activity }`) a hook
 * subscribed to `event` receives from the sandbox at `baseUrl`, for a hook
 * numbered 1001; the times are those of `now`.
 *
 * @param event an event name of {@linkcode eventCatalog}
 * @param baseUrl the community's address, such as `http://127.0.0.1:8000/sandbox`
 * @param now the time of the activity (ms); default a fixed example time
 * @throws {RangeError} for an event that is not in the catalog
 */
export function examplePostback(event: string, baseUrl: string, now = Date.UTC(2025, 0, 15, 9, 30)): Postback[] {
  if (!CONTENT_EVENTS.includes(event) && !SYSTEM_EVENTS.includes(event)) {
    throw new RangeError(`Cannot build an example: ${JSON.stringify(event)} is not an event of the platform`);
  }
  const system = isSystemEvent(event);
  const published = new Date(now).toISOString();
  const hook = {
    id: "1001",
    tenantId: "sandbox-tenant",
    baseUrl,
    events: [event],
    ...(system ? {} : { object: `${baseUrl}/api/core/v3/places/1000` }),
    callback: "https://receiver.example/hooks/1001",
    enabled: true,
    published,
    updated: published,
  };
  return [buildPostback(hook, `${baseUrl}/api/core/v3/webhooks/1001`, event, defaultVerb(event), now, 2001)];
}

export type { Postback };
