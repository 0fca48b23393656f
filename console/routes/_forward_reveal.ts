/**
 * Forward to's Add is Post/Redirect/Get: the secret of the destination it
 * adds waits in KV for the page the redirect leads to, under the session that
 * adds it and a random token in that page's address (`?reveal=`), for a few
 * minutes, and is taken (deleted) by the first read. It is made and kept
 * before the destination is added with it, so that a process killed (or a KV
 * failing) between the two leaves either a destination whose secret is kept
 * or a reveal of nothing: the page checks that the destination is there. A
 * reload or Back asks for that page again, not for the POST: nothing is added
 * again and the secret is not shown again. The secret is never in an address,
 * a cookie or a log; the token alone shows nothing to another session, which
 * has another key.
 *
 * @module
 */

import type { Context } from "hono";
import type { Destination } from "../../webhooks/mod.ts";
import { type ConsoleEnv, type Deps, sessionIdOf } from "../lib/context.ts";
import { forwardRevealKey, forwardRevealPrefix, isBearerId } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { randomToken } from "../lib/session.ts";
import { destinationsOf } from "./_forward_lookups.ts";

/** How long the added destination waits for its page. */
const REVEAL_TTL_MS = 5 * 60_000;

/** A destination just added, with its secret. */
export type Added = Destination & { secret: string };

/** What waits for the page: the hook, the URL (as the relay stores it) and secret, and the id once added. */
interface Reveal {
  hookId: string;
  url: string;
  secret: string;
  /** Absent until the destination is added (a kill before or just after the add leaves it so). */
  id?: string;
}

/** The key of `token` for the session `c` answers, or `null` when there is no session or the token is malformed. */
function keyOf(c: Context<ConsoleEnv>, deps: Deps, token: string): Deno.KvKey | null {
  const sessionId = sessionIdOf(c, deps);
  return sessionId && isBearerId(token) ? forwardRevealKey(sessionId, token) : null;
}

/** This session's reveals, at most 100. */
async function revealsOf(c: Context<ConsoleEnv>, deps: Deps): Promise<Deno.KvEntry<Reveal>[]> {
  const sessionId = sessionIdOf(c, deps);
  if (!sessionId) return [];
  return await Array.fromAsync(deps.kv.list<Reveal>({ prefix: forwardRevealPrefix(sessionId) }, { limit: 100 }));
}

/** Whether a kept secret is a signing secret the relay makes (`whsec_` and base64), so one to show and copy. */
function isSecret(value: unknown): value is string {
  return typeof value === "string" && /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value);
}

/** Whether `reveal` is of `d`: by id once added, by URL (one destination a URL per hook) until then. */
function isOf(reveal: Reveal | null, d: Destination): boolean {
  return reveal?.id === undefined ? reveal?.url === d.url : reveal.id === d.id;
}

/** A secret kept for the page of an add: its token, and the reveals of an earlier add of the URL it dropped. */
export interface Kept {
  /** The token for the page's `?reveal=`. */
  token: string;
  /** What keeping it dropped: this session's reveals of the same hook and URL. */
  dropped: Deno.KvEntry<Reveal>[];
}

/**
 * Keeps `secret`, for the destination at `url` about to be added on the hook `hookId`, for this session's next page;
 * a reveal this session kept for that URL and hook before (an add that never happened) is dropped.
 *
 * @returns the token for that page's `?reveal=`, and the reveals dropped (put back by {@linkcode dropReveal})
 */
export async function keepReveal(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hookId: string,
  url: string,
  secret: string,
): Promise<Kept> {
  const token = randomToken();
  const key = keyOf(c, deps, token);
  if (!key) throw new Error("No session to show the secret to");
  const value: Reveal = { hookId, url: URL.parse(url)?.href ?? url, secret };
  const atomic = deps.kv.atomic().set(key, value, { expireIn: REVEAL_TTL_MS });
  const dropped: Deno.KvEntry<Reveal>[] = [];
  for (const entry of await revealsOf(c, deps)) {
    if (entry.value?.hookId === hookId && entry.value.url === value.url) {
      atomic.delete(entry.key);
      dropped.push(entry);
    }
  }
  await retryLocked(() => atomic.commit());
  return { token, dropped };
}

/** Notes that the destination of the reveal `token` is added, as `id`; a failure leaves it found by its URL. */
export async function markAdded(c: Context<ConsoleEnv>, deps: Deps, token: string, id: string): Promise<void> {
  const key = keyOf(c, deps, token);
  if (!key) return;
  try {
    const entry = await deps.kv.get<Reveal>(key);
    if (!entry.value) return;
    const value: Reveal = { ...entry.value, id };
    await deps.kv.atomic().check(entry).set(key, value, { expireIn: REVEAL_TTL_MS }).commit();
  } catch {
    // The KV failing: the URL finds it still.
  }
}

/**
 * Drops the reveal of an add that was refused (nothing added), and puts back the reveals its keeping dropped: the
 * same Add sent twice at once to two processes (a double click behind a load balancer) keeps two reveals, the later
 * dropping the earlier, and when the earlier's add is the one stored, its reveal is the one its page and this answer
 * lead to. Each goes back only where its key is still free.
 */
export async function dropReveal(c: Context<ConsoleEnv>, deps: Deps, kept: Kept): Promise<void> {
  const key = keyOf(c, deps, kept.token);
  if (key) await retryLocked(() => deps.kv.delete(key));
  for (const entry of kept.dropped) {
    await retryLocked(() =>
      deps.kv.atomic().check({ key: entry.key, versionstamp: null })
        .set(entry.key, entry.value, { expireIn: REVEAL_TTL_MS }).commit()
    );
  }
}

/**
 * Takes what {@linkcode keepReveal} kept under `token` for this session and the hook `hookId`: once; the destination
 * with its secret, `"missing"` when it is not among the hook's (never added, or removed since), or `null` when it
 * was taken already, has expired, is another session's or another hook's, or was never kept.
 */
export async function takeReveal(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hookId: string,
  token: string,
): Promise<Added | "missing" | null> {
  const key = keyOf(c, deps, token);
  if (!key) return null;
  const entry = await deps.kv.get<Reveal>(key);
  if (entry.value?.hookId !== hookId) return null;
  // Two reads at once (a reload during the first load): one shows it.
  const taken = await retryLocked(() => deps.kv.atomic().check(entry).delete(key).commit());
  // A secret edited by hand into junk (or left by a bad write) is none to copy: the page says it is not shown.
  if (!taken.ok || !isSecret(entry.value.secret)) return null;
  const destination = (await destinationsOf(deps.relay, hookId)).find((d) => isOf(entry.value, d));
  return destination ? { ...destination, secret: entry.value.secret } : "missing";
}

/**
 * The token under which this session's page still waits to show the destination `destination` of the hook
 * `hookId` (an Add sent twice, or sent again after the process answering the first was killed), or `null`: none
 * waits (shown already, expired, added by another session).
 */
export async function pendingReveal(
  c: Context<ConsoleEnv>,
  deps: Deps,
  hookId: string,
  destination: Destination,
): Promise<string | null> {
  const found = (await revealsOf(c, deps)).find((e) => e.value?.hookId === hookId && isOf(e.value, destination));
  return found ? String(found.key.at(-1)) : null;
}
