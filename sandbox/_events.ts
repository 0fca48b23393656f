/**
 * Event names of the platform, and validation of a webhook registration
 * body as the platform does it.
 *
 * @module
 */

import { CONTENT_EVENTS, SYSTEM_EVENTS } from "../webhooks/mod.ts";

export { CONTENT_EVENTS, SYSTEM_EVENTS };

/** Whether an event name is a system event. */
export function isSystemEvent(event: string): boolean {
  return SYSTEM_EVENTS.includes(event);
}

/** Whether an event name is known to the platform. */
export function isKnownEvent(event: string): boolean {
  return SYSTEM_EVENTS.includes(event) || CONTENT_EVENTS.includes(event);
}

/** A registration body that passed validation. */
export interface HookFields {
  events: string[];
  object?: string;
  callback: string;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Whether `object` is a place URI as the platform takes it: only URI
 * characters (RFC 3986), an absolute http(s) URL or an absolute path, whose
 * path ends in `/places/{id}` with a numeric id.
 */
function isPlaceUri(object: string): boolean {
  if (!/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/.test(object)) return false;
  let url: URL;
  try {
    url = new URL(object, "http://place.invalid");
  } catch {
    return false;
  }
  const absolute = /^https?:\/\//i.test(object) || (object.startsWith("/") && !object.startsWith("//"));
  return absolute && (url.protocol === "http:" || url.protocol === "https:") && /\/places\/\d+$/.test(url.pathname);
}

/** The longest place URI or callback URL a hook may have (the record must fit one KV value). */
const MAX_URL_CHARS = 8192;

/** The most event names a hook may have (there are fewer kinds than this). */
const MAX_EVENTS = 64;

/**
 * Validates `{ events, object, callback }` like the platform; returns the
 * fields, or the message of a 400 answer.
 */
export function validateHookFields(body: unknown): HookFields | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "The request body must be a JSON object with events, object and callback";
  }
  const { events: rawEvents, object, callback } = body as Record<
    string,
    unknown
  >;
  // The platform documents events as one comma-separated string; accept it.
  const events = typeof rawEvents === "string" ? rawEvents.split(",").map((e) => e.trim()) : rawEvents;
  if (!Array.isArray(events) || events.length === 0) {
    return `'events' must be a non-empty array of event names, got ${show(rawEvents)}`;
  }
  if (events.length > MAX_EVENTS) return `'events' must name at most ${MAX_EVENTS}, got ${events.length}`;
  for (const event of events) {
    if (typeof event !== "string" || event === "") {
      return `'events' must hold non-empty strings, got ${show(event)}`;
    }
    if (!isKnownEvent(event)) {
      return `Unknown event ${show(event)}`;
    }
  }
  const system = events.filter(isSystemEvent);
  if (system.length > 0 && system.length < events.length) {
    return `System events (${system.join(", ")}) cannot be mixed with content events`;
  }
  const isSystem = system.length > 0;
  if (isSystem) {
    if (object !== undefined && object !== null && object !== "") {
      return `'object' must be empty for system events, got ${show(object)}`;
    }
  } else if (typeof object !== "string" || object.trim() === "") {
    return `'object' must be the URI of a place for content events, got ${show(object)}`;
  }
  if (typeof callback !== "string") {
    return `'callback' must be an absolute http(s) URL, got ${show(callback)}`;
  }
  for (const [name, value] of [["object", object], ["callback", callback]] as const) {
    if (typeof value === "string" && value.length > MAX_URL_CHARS) {
      return `'${name}' must be at most ${MAX_URL_CHARS} characters, got ${value.length}`;
    }
  }
  if (!isSystem && !isPlaceUri(object as string)) {
    return `'object' must be the URI of a place, such as "https://community.example/api/core/v3/places/1000", got ${
      show(object)
    }`;
  }
  let url: URL;
  try {
    url = new URL(callback);
  } catch {
    return `'callback' must be an absolute http(s) URL, got ${show(callback)}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `'callback' must be an absolute http(s) URL, got ${show(callback)}`;
  }
  return {
    events: [...events] as string[],
    ...(isSystem ? {} : { object: object as string }),
    callback,
  };
}
