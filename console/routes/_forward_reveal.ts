/**
 * Forward to's Add is Post/Redirect/Get: the destination it added, with its
 * signing secret, waits in KV for the page the redirect leads to, under the
 * session that added it and a random token in that page's address
 * (`?reveal=`), for a few minutes, and is taken (deleted) by the first read.
 * A reload or Back asks for that page again, not for the POST: nothing is
 * added again and the secret is not shown again. The secret is never in an
 * address, a cookie or a log; the token alone shows nothing to another
 * session, which has another key.
 *
 * @module
 */

import type { Context } from "hono";
import type { Destination } from "../../webhooks/mod.ts";
import { type ConsoleEnv, type Deps, sessionIdOf } from "../lib/context.ts";
import { forwardRevealKey, forwardRevealPrefix } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { randomToken } from "../lib/session.ts";

/** How long the added destination waits for its page. */
const REVEAL_TTL_MS = 5 * 60_000;

/** A destination just added, with its secret. */
export type Added = Destination & { secret: string };

/** What waits for the page: the hook it was added on, and the destination. */
interface Reveal {
  hookId: string;
  added: Added;
}

/** The key of `token` for the session `c` answers, or `null` when there is no session or the token is malformed. */
function keyOf(c: Context<ConsoleEnv>, deps: Deps, token: string): Deno.KvKey | null {
  const sessionId = sessionIdOf(c, deps);
  return sessionId && /^[A-Za-z0-9_-]{43}$/.test(token) ? forwardRevealKey(sessionId, token) : null;
}

/**
 * Keeps `added` (on the hook `hookId`) for this session's next page.
 *
 * @returns the token for that page's `?reveal=`
 */
export async function keepReveal(c: Context<ConsoleEnv>, deps: Deps, hookId: string, added: Added): Promise<string> {
  const token = randomToken();
  const key = keyOf(c, deps, token);
  if (!key) throw new Error("No session to show the secret to");
  const value: Reveal = { hookId, added };
  await retryLocked(() => deps.kv.set(key, value, { expireIn: REVEAL_TTL_MS }));
  return token;
}

/**
 * Takes what {@linkcode keepReveal} kept under `token` for this session and the hook `hookId`: once; `null` when
 * it was taken already, has expired, is another session's or another hook's, or was never kept.
 */
export async function takeReveal(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hookId: string,
  token: string,
): Promise<Added | null> {
  const key = keyOf(c, deps, token);
  if (!key) return null;
  const entry = await deps.kv.get<Reveal>(key);
  if (entry.value?.hookId !== hookId) return null;
  // Two reads at once (a reload during the first load): one shows it.
  const taken = await retryLocked(() => deps.kv.atomic().check(entry).delete(key).commit());
  return taken.ok ? entry.value.added : null;
}

/**
 * The token under which this session's page still waits to show the destination `destinationId` of the hook
 * `hookId` (an Add sent twice: the browser shows the second answer, and the first one's redirect is never followed),
 * or `null`: none waits (shown already, expired, added by another session).
 */
export async function pendingReveal(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hookId: string,
  destinationId: string,
): Promise<string | null> {
  const sessionId = sessionIdOf(c, deps);
  if (!sessionId) return null;
  for await (const entry of deps.kv.list<Reveal>({ prefix: forwardRevealPrefix(sessionId) }, { limit: 100 })) {
    if (entry.value?.hookId === hookId && entry.value.added?.id === destinationId) return String(entry.key.at(-1));
  }
  return null;
}
