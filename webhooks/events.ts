/**
 * The platform's event names (SPEC.md section 6, PLATFORM.md).
 *
 * @module
 */

/**
 * System events: `object` is optional for them (the platform wants it empty),
 * and they are not mixed with content events in one registration.
 *
 * @example Usage
 * ```ts
 * import { SYSTEM_EVENTS } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * assert.ok(SYSTEM_EVENTS.includes("user_account"));
 * assert.ok(!SYSTEM_EVENTS.includes("document"));
 * ```
 */
export const SYSTEM_EVENTS: readonly string[] = Object.freeze([
  "user_account",
  "user_membership",
  "user_session",
  "social_group",
  "webhook",
]);

/**
 * Content events the platform documents, named after the content type; they
 * need `object`, the URI of a place. Other content types are accepted too:
 * any event that is not a system event counts as a content event.
 *
 * @example Usage
 * ```ts
 * import { CONTENT_EVENTS } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * assert.ok(CONTENT_EVENTS.includes("discussion"));
 * ```
 */
export const CONTENT_EVENTS: readonly string[] = Object.freeze([
  "document",
  "file",
  "discussion",
  "post",
  "task",
  "dm",
  "url",
  "update",
  "idea",
]);
