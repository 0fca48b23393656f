// What the "Forward to" page (forwarding.tsx) reads of the relay for one
// hook: the destinations it shows and acts on, its dead letters, and one dead
// letter by id. Ids from a URL are looked up in these lists, never used as
// KV keys (a KV key holds 2048 bytes). And forgetting a gone hook's
// destinations (Unregister, Forget, reconcile's removal of dangling records).

import type { DeadLetter, Destination, Relay } from "../../webhooks/mod.ts";

/** The destinations a hook's page shows and acts on: its own and those of every hook. */
export async function destinationsOf(relay: Relay, hookId: string): Promise<Destination[]> {
  return (await relay.destinations.list()).filter((d) => d.hookIds === undefined || d.hookIds.includes(hookId));
}

/** The hook's newest dead letters (at most 200) at `destinations`. */
export async function deadLettersOf(relay: Relay, hookId: string, destinations: Destination[]): Promise<DeadLetter[]> {
  const out: DeadLetter[] = [];
  for (const d of destinations) {
    let cursor = "";
    do {
      const page = await relay.deadLetters({ destinationId: d.id, cursor });
      out.push(...page.values.filter((letter) => letter.hookId === hookId));
      cursor = page.cursor;
    } while (cursor && out.length < 200);
  }
  return out.sort((a, b) => b.deadAt - a.deadAt).slice(0, 200);
}

/** The dead letter `entryId` of the hook with its destination (every page read), or `null` when it is none of them. */
export async function deadLetterOf(
  relay: Relay,
  hookId: string,
  entryId: string,
): Promise<{ letter: DeadLetter; destination: Destination } | null> {
  for (const destination of await destinationsOf(relay, hookId)) {
    let cursor = "";
    do {
      const page = await relay.deadLetters({ destinationId: destination.id, cursor });
      const letter = page.values.find((l) => l.id === entryId && l.hookId === hookId);
      if (letter) return { letter, destination };
      cursor = page.cursor;
    } while (cursor);
  }
  return null;
}

/** An id from a URL as an error names it: quoted, and cut short when long. */
export function shownId(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
}

/**
 * Forgets the destinations of hooks whose records are gone (unregistered, forgotten, or dangling records reconcile
 * removed, all at once): one bound to those hooks alone is removed, secret and all (no page would list it again); one
 * shared with other hooks keeps those. Never throws: an update refused (another of its hooks gone too) leaves that
 * destination.
 */
export async function forgetDestinations(relay: Relay, hookIds: string[]): Promise<void> {
  const gone = new Set(hookIds);
  for (const d of await relay.destinations.list().catch(() => [])) {
    const rest = d.hookIds?.filter((id) => !gone.has(id));
    if (rest === undefined || rest.length === d.hookIds!.length) continue;
    await (rest.length === 0 ? relay.destinations.remove(d.id) : relay.destinations.update(d.id, { hookIds: rest }))
      .catch(() => {});
  }
}

/**
 * A destination's URL as pages show it: a password in it (`https://user:pass@host/`, sent as Basic auth) is a secret
 * and shows as `***`, as does a user name that stands alone (`https://TOKEN@host/` is how tokens are often passed);
 * the rest as given. The relay refuses such URLs now; earlier versions stored them, and a refused form keeps its value.
 */
export function shownUrl(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null || (parsed.password === "" && parsed.username === "")) return url;
  if (parsed.password === "") parsed.username = "***";
  else parsed.password = "***";
  return parsed.href;
}
