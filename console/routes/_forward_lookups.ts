// What the "Forward to" page (forwarding.tsx) reads of the relay for one
// hook: the destinations it shows and acts on, its dead letters, and one dead
// letter by id. Ids from a URL are looked up in these lists, never used as
// KV keys (a KV key holds 2048 bytes). And forgetting a gone hook's
// destinations (Unregister, Forget, reconcile's removal of dangling records).

import type { DeadLetter, Destination, Relay } from "../../webhooks/mod.ts";
import type { Deps } from "../lib/context.ts";
import { oneAtATime } from "../lib/one_at_a_time.ts";

/** The destinations a hook's page shows and acts on: its own and those of every hook. */
export async function destinationsOf(relay: Relay, hookId: string): Promise<Destination[]> {
  return (await relay.destinations.list()).filter((d) => d.hookIds === undefined || d.hookIds.includes(hookId));
}

/** Dead letters a page of "Forward to" shows at most. */
export const DEAD_PAGE = 100;

/**
 * A page of the hook's dead letters, newest first, from `cursor` (`""`: the newest): one read of the relay's
 * index by hook and of the letters it names, however many dead letters other hooks left at a destination of every
 * hook. Those at a destination the page no longer shows (removed, or moved to other hooks) are left out; `read` counts
 * them too (`0`: the page before was the last, full one, so the relay gave it a cursor).
 */
export async function deadLettersOf(
  relay: Relay,
  hookId: string,
  destinations: Destination[],
  cursor: string,
): Promise<{ values: DeadLetter[]; cursor: string; read: number }> {
  const shown = new Set(destinations.map((d) => d.id));
  const page = await relay.deadLetters({ hookId, cursor, newestFirst: true, limit: DEAD_PAGE });
  const values = page.values.filter((letter) => shown.has(letter.destinationId));
  return { values, cursor: page.cursor, read: page.values.length };
}

/**
 * The dead letter `entryId` of the hook with its destination, or `null` when it is none of the page's (another
 * hook's, sent again, or at a destination the page does not show): that one letter read, and the destinations.
 */
export async function deadLetterOf(
  relay: Relay,
  hookId: string,
  entryId: string,
): Promise<{ letter: DeadLetter; destination: Destination } | null> {
  const letter = await relay.deadLetter(entryId);
  if (letter === null || letter.hookId !== hookId) return null;
  const destination = (await destinationsOf(relay, hookId)).find((d) => d.id === letter.destinationId);
  return destination ? { letter, destination } : null;
}

/** An id from a URL as an error names it: quoted, and cut short when long. */
export function shownId(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
}

/** The hooks a destination of a hook's page forwards, as the page says: every hook, this hook, or it and others. */
export function hooksOf(d: Destination): string {
  const others = (d.hookIds?.length ?? 0) - 1;
  if (d.hookIds === undefined) return "every hook";
  return others > 0 ? `this hook and ${others} other${others === 1 ? "" : "s"}` : "this hook";
}

/**
 * Takes the hook `hookId` off destination `d` (its page's Remove): one shared with other hooks whose records are
 * there goes on forwarding their postbacks, under its secret; one of this hook alone, or of every hook, is removed.
 * Resolves with how many other hooks it still forwards.
 */
export async function takeOff(
  relay: Relay,
  hookId: string,
  d: Destination,
  exists: (hookId: string) => Promise<boolean>,
): Promise<number> {
  // Read again, one change of its hooks at a time: another tab's Remove of this shared destination may have taken its
  // hook off meanwhile, and writing the list read before, minus this hook, would put that hook back.
  return await narrowing(d.id, async () => {
    const now = await relay.destinations.get(d.id);
    if (now === null) return 0; // removed meanwhile
    const without = (d: Destination) => d.hookIds?.filter((id) => id !== hookId) ?? [];
    return await narrowTo(relay, now, without(now), exists, without);
  });
}

/**
 * The changes of a destination's hooks made in this process, one at a time per destination, each on the list as the
 * one before left it. Two consoles on one KV are not ordered by it: there, each update holds only while the list is
 * still the one read (`ifHookIds`), and is worked out again from a fresh read otherwise.
 */
const narrowing = oneAtATime();

/**
 * Leaves destination `d` to the hooks among `hookIds` whose records are there (the relay refuses an update that names
 * one that is gone), or removes it when none is; resolves with how many it keeps. The update holds only while the
 * destination's hooks are still those of `d` (`ifHookIds`): another console on this KV that changed them meanwhile
 * (its own hook taken off) is not undone; the destination is read again and `next` says what to leave then (`null`:
 * nothing to change any more).
 */
async function narrowTo(
  relay: Relay,
  d: Destination,
  hookIds: string[],
  exists: (hookId: string) => Promise<boolean>,
  next: (now: Destination) => string[] | null = () => hookIds,
): Promise<number> {
  for (let now: Destination | null = d, wanted = hookIds; now !== null;) {
    const found = await Promise.all(wanted.map(exists));
    const kept = wanted.filter((_, i) => found[i]);
    if (kept.length === 0) {
      await relay.destinations.remove(now.id);
      return 0;
    }
    if (await relay.destinations.update(now.id, { hookIds: kept, ifHookIds: now.hookIds ?? null })) return kept.length;
    now = await relay.destinations.get(now.id); // changed (or removed) meanwhile
    const again = now && next(now);
    if (again === null) return now?.hookIds?.length ?? 0;
    wanted = again;
  }
  return 0;
}

/** Whether a hook's record is there: what {@linkcode takeOff} and {@linkcode forgetDestinations} ask. */
export function hookExists(deps: Pick<Deps, "webhooks">): (hookId: string) => Promise<boolean> {
  return async (hookId) => (await deps.webhooks.findByID(hookId)) !== null;
}

/**
 * The hooks that destinations name whose records are gone: left by an Unregister or a reconcile killed before it
 * forgot their destinations (a retry no longer sees the record), or by a record deleted by hand. A hook that cannot
 * be looked up now is taken as there.
 */
export async function goneHooks(deps: Pick<Deps, "relay" | "webhooks">): Promise<string[]> {
  const named = new Set<string>();
  for (const d of await deps.relay.destinations.list().catch(() => [])) for (const id of d.hookIds ?? []) named.add(id);
  const exists = hookExists(deps);
  const found = await Promise.all([...named].map((id) => exists(id).catch(() => true)));
  return [...named].filter((_, i) => !found[i]);
}

/**
 * Forgets the destinations of hooks whose records are gone (unregistered, forgotten, or dangling records reconcile
 * removed, all at once): one bound to those hooks alone is removed, secret and all (no page would list it again); one
 * shared with other hooks keeps those whose records are there (`exists`; the relay refuses an update that names a
 * hook already gone, which would leave the destination, secret and all, forwarding nothing on no page). Never throws:
 * an update or removal that fails leaves that destination.
 */
export async function forgetDestinations(
  relay: Relay,
  hookIds: string[],
  exists: (hookId: string) => Promise<boolean>,
): Promise<void> {
  const gone = new Set(hookIds);
  /** `d`'s hooks without the gone ones, or `null` when it names none of them (or is gone, or serves every hook). */
  const narrowed = (d: Destination | null): string[] | null => {
    const named = d?.hookIds?.filter((id) => !gone.has(id));
    return named === undefined || named.length === d!.hookIds!.length ? null : named;
  };
  for (const d of await relay.destinations.list().catch(() => [])) {
    if (narrowed(d) === null) continue;
    await narrowing(d.id, async () => {
      const now = await relay.destinations.get(d.id); // as a Remove in another tab may have left it
      const named = narrowed(now);
      if (named === null) return;
      // A hook that cannot be looked up now is taken as there: the update then keeps it, or is refused.
      await narrowTo(relay, now!, named, (id) => exists(id).catch(() => true), narrowed);
    }).catch(() => {});
  }
}
