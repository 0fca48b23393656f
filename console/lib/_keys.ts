/**
 * KV key builders of the console, kept in one place. Every console key
 * starts with `"console_"` so it never meets Module A's collections.
 *
 * @module
 */

/** Key of a signed-in session. */
export function sessionKey(id: string): Deno.KvKey {
  return ["console_session", id];
}

/** Key of a pending OAuth authorization (sign-in or community connect). */
export function oauthStateKey(id: string): Deno.KvKey {
  return ["console_oauth_state", id];
}

/** Key of a receiver id: the `{id}` of `/hooks/{id}` mapped to a webhook record id. */
export function receiverKey(id: string): Deno.KvKey {
  return ["console_receiver", id];
}

/** Reverse index of receiver ids by webhook record id. */
export function receiverByHookKey(hookId: string, id: string): Deno.KvKey {
  return ["console_receiver_by_hook", hookId, id];
}

/** Prefix of the receiver ids of one webhook record. */
export function receiverByHookPrefix(hookId: string): Deno.KvKey {
  return ["console_receiver_by_hook", hookId];
}

/** Key of one stored delivery with its payload. */
export function deliveryKey(id: string): Deno.KvKey {
  return ["console_delivery", id];
}

/** Key of the small summary of a delivery, newest last (ULID order). */
export function deliveryViewKey(id: string): Deno.KvKey {
  return ["console_delivery_view", id];
}

/** Prefix of all delivery summaries. */
export const DELIVERY_VIEW_PREFIX: Deno.KvKey = ["console_delivery_view"];

/** Index key of a delivery by webhook record id. */
export function deliveryByHookKey(hookId: string, id: string): Deno.KvKey {
  return ["console_delivery_by_hook", hookId, id];
}

/** Prefix of the deliveries of one webhook record. */
export function deliveryByHookPrefix(hookId: string): Deno.KvKey {
  return ["console_delivery_by_hook", hookId];
}

/** A key bumped on every delivery; the live page watches it. */
export const DELIVERY_LATEST_KEY: Deno.KvKey = ["console_delivery_latest"];
