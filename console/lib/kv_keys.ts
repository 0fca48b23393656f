/**
 * KV key builders of the console, kept in one place. Every console key
 * starts with `"console_"` so it never meets Module A's collections.
 *
 * A bearer id (a session id, an OAuth state id, a draft id: what a cookie or an
 * address carries and whoever holds it may use) is kept only as its SHA-256
 * ({@linkcode atRest}): the cookie alone opens what it names, and whoever reads
 * the KV (a backup, a KV Connect token, a copied file) finds no id to send.
 *
 * @module
 */

import { hash } from "node:crypto";

/**
 * What the KV keeps of a bearer id: its SHA-256 in hex (64 characters, never the shape of an id, which is 43
 * characters of base64url). The ids are 256 random bits, so a plain hash cannot be reversed or guessed.
 */
export function atRest(id: string): string {
  return hash("sha256", id, "hex");
}

/** Whether `value` has the shape of a bearer id or token the console makes: 43 characters of base64url (32 bytes). */
export function isBearerId(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** Key of a signed-in session (by the hash of its id). */
export function sessionKey(id: string): Deno.KvKey {
  return ["console_session", atRest(id)];
}

/**
 * Where versions before ids were hashed kept a session: under its raw id. Read once, to move the session to
 * {@linkcode sessionKey}; `null` for what cannot be such an id (so a hash read out of the KV never names one).
 */
export function rawSessionKey(id: string): Deno.KvKey | null {
  return isBearerId(id) ? ["console_session", id] : null;
}

/** Key of a pending OAuth authorization (sign-in or community connect), by the hash of its id. */
export function oauthStateKey(id: string): Deno.KvKey {
  return ["console_oauth_state", atRest(id)];
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

/** A hook's name and description, given in the console. */
export function hookLabelKey(hookId: string): Deno.KvKey {
  return ["console_hook_label", hookId];
}

/**
 * A one-time form token (Register, Send test event, Replay to receiver, Redeliver): taken by its first submission,
 * then what that made or where it led.
 */
export function formTokenKey(token: string): Deno.KvKey {
  return ["console_form_token", token];
}

/** What the reconcile fixes of a community changed, for the next page of the session that applied them. */
export function reconcileChangesKey(sessionId: string, tenantId: string): Deno.KvKey {
  return ["console_reconcile_changes", atRest(sessionId), tenantId];
}

/** The community a user last registered a webhook in (by the user's `sub`). */
export function lastCommunityKey(sub: string): Deno.KvKey {
  return ["console_last_community", sub];
}

/** A form kept when its session had ended (its non-secret fields), for the page it came from (by its id's hash). */
export function draftKey(id: string): Deno.KvKey {
  return ["console_draft", atRest(id)];
}

/** Held while the console adds a community with this tenant id, so two adds at once cannot both save (one minute at most). */
export function addingCommunityKey(tenantId: string): Deno.KvKey {
  return ["console_adding_community", tenantId];
}

/**
 * A destination just added on Forward to, with its secret, for the one page its Add redirects to: under the session
 * that added it and a random token in that page's address, read once.
 */
export function forwardRevealKey(sessionId: string, token: string): Deno.KvKey {
  return [...forwardRevealPrefix(sessionId), token];
}

/** Where the destinations a session added wait for their page ({@linkcode forwardRevealKey}), by the session's hash. */
export function forwardRevealPrefix(sessionId: string): Deno.KvKey {
  return ["console_forward_reveal", atRest(sessionId)];
}
