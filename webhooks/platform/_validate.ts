// Argument checks of `register`, done before any request is sent.

import { describe, describeUrl, requireString } from "../_util.ts";
import { SYSTEM_EVENTS } from "../events.ts";
import type { RegisterOptions } from "../options.ts";

const ACTION = "register webhook";

/**
 * Throws a `TypeError` naming the first bad argument of `register`, by the
 * name the caller used: the option's in the options form, else SPEC.md's.
 */
export function validateRegistration(options: RegisterOptions, optionsForm = false, action = ACTION): void {
  const communityName = optionsForm ? "community" : "jiveCommunity";
  const callbackName = optionsForm ? "callback" : "webhookCallbackURL";
  requireString(options.community, communityName, action);
  const { events } = options;
  if (!Array.isArray(events) || events.length === 0 || !everyIndexNonEmpty(events)) {
    throw new TypeError(
      `Cannot ${action}: 'events' must be a non-empty array of non-empty strings, got ${
        Array.isArray(events) ? JSON.stringify(events).slice(0, 120) : describe(events)
      }`,
    );
  }
  const system = events.filter((event) => SYSTEM_EVENTS.includes(event));
  const content = events.filter((event) => !SYSTEM_EVENTS.includes(event));
  if (system.length > 0 && content.length > 0) {
    throw new TypeError(
      `Cannot ${action}: 'events' mixes system events (${system.join(", ")}) with content events (${
        content.join(", ")
      })`,
    );
  }
  if (options.object !== undefined && options.object !== null && typeof options.object !== "string") {
    throw new TypeError(`Cannot ${action}: 'object' must be a string, got ${describe(options.object)}`);
  }
  if (content.length > 0 && !options.object) {
    throw new TypeError(
      `Cannot ${action}: 'object' must be a non-empty string for content events (${content.join(", ")})`,
    );
  }
  requireString(options.callback, callbackName, action);
  if (!isAbsoluteHttpUrl(options.callback)) {
    throw new TypeError(
      `Cannot ${action}: '${callbackName}' must be an absolute http(s) URL, got ${describeUrl(options.callback)}`,
    );
  }
  validateCredentials(options, action);
}

/**
 * Whether every index of `events` holds a non-empty string: a sparse array's
 * holes count (`every` skips them, and JSON sends them as `null`).
 */
function everyIndexNonEmpty(events: unknown[]): boolean {
  for (let i = 0; i < events.length; i++) {
    if (typeof events[i] !== "string" || events[i] === "") return false;
  }
  return true;
}

/**
 * Whether `text` is an absolute http(s) URL as written: `http://` or
 * `https://` and a host (no third slash), with no whitespace, control character or backslash
 * anywhere. The URL parser repairs such spellings (it drops tabs and line
 * breaks, trims, adds the missing slashes, reads `\\` as `/`), but the
 * callback goes to the platform as given.
 */
function isAbsoluteHttpUrl(text: string): boolean {
  // deno-lint-ignore no-control-regex
  if (!/^https?:\/\/[^/]/i.test(text) || /[\u0000-\u0020\u007f-\u009f\\]/.test(text)) return false;
  const url = URL.parse(text);
  return url !== null && url.hostname !== "";
}

/** Checks the optional credential arguments shared by register, unregister and reconcile. */
export function validateCredentials(
  options: Pick<RegisterOptions, "accessToken" | "refreshToken" | "tokenPersistenceFunction">,
  action: string,
): void {
  // Token values are secrets: an error names the argument, never its value.
  // An empty string counts as not given, as undefined and null do.
  for (const field of ["accessToken", "refreshToken"] as const) {
    const value = options[field];
    if (value !== undefined && value !== null && typeof value !== "string") {
      throw new TypeError(`Cannot ${action}: '${field}' must be a string when given`);
    }
  }
  const persist = options.tokenPersistenceFunction;
  if (persist !== undefined && persist !== null && typeof persist !== "function") {
    throw new TypeError(
      `Cannot ${action}: 'tokenPersistenceFunction' must be a function, got ${describe(persist)}`,
    );
  }
}

/**
 * Throws a `TypeError` when the record stored under `id` (read for an unregister or update by id) was edited by
 * hand into one the platform call cannot use: the message says the stored record is damaged and names its field,
 * since the caller's argument (the id) was right.
 */
export function checkStoredRecord(record: { entity?: unknown; tenantId?: unknown }, id: string, action: string): void {
  const damaged = `Cannot ${action}: the stored record ${describe(id)} is damaged: its`;
  if (typeof record.entity !== "object" || record.entity === null) {
    throw new TypeError(`${damaged} 'entity' must be an object, got ${describe(record.entity)}`);
  }
  if (typeof record.tenantId !== "string" || record.tenantId === "") {
    throw new TypeError(`${damaged} 'tenantId' must be a non-empty string, got ${describe(record.tenantId)}`);
  }
}
