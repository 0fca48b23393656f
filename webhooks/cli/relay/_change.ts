// `relay enable`, `relay disable` and `relay remove`: a destination changed
// from the command line, as `relay.destinations.update` and `remove` change
// it (docs/relay.md). An id that is no destination id is a usage error before
// anything is read; one that names no destination fails (status 1). Nothing
// printed holds a secret: a destination is shown as `relay destinations`
// shows it.

import type { Destination, Relay } from "../../relay/mod.ts";
import { jsonText } from "../_format.ts";
import { shownDestination } from "./_lists.ts";
import { badDestinationId, type RelayContext, unknownDestination as unknown, withRelay } from "./_with_relay.ts";

/** Runs `fn` with the relay and the command's ID; an ID that is no destination id is a usage error, nothing read. */
function withDestinationId(
  ctx: RelayContext,
  usageHint: (message: string) => Error,
  fn: (relay: Relay, id: string) => Promise<void>,
): Promise<void> {
  const [id] = ctx.args;
  const bad = badDestinationId(id);
  if (bad !== null) return Promise.reject(usageHint(bad));
  return withRelay(ctx, (relay) => fn(relay, id));
}

/**
 * Enables (`enabled` true) or disables a destination. Enabled again, the entries kept while it was paused are due at
 * once (the relay moves them back to the outbox); disabled, it gets no new entries and keeps those waiting, untried,
 * unless it is pinned and a listen forwards to it: that listen stops and removes it.
 * With --json: the destination as `relay destinations --json` shows it, and `changed` (false when it already was).
 */
export function setEnabled(
  ctx: RelayContext,
  enabled: boolean,
  usageHint: (message: string) => Error,
): Promise<void> {
  return withDestinationId(ctx, usageHint, async (relay, id) => {
    // Changed only if it is not so yet in the commit: of runs at once, one changes it, the others find it already so.
    let changed = false;
    let after: Destination | null = null;
    while (after === null) {
      after = await relay.destinations.update(id, { enabled, ifEnabled: !enabled });
      changed = after !== null;
      after ??= await relay.destinations.get(id);
      if (after === null) throw unknown(id); // not there, or removed meanwhile
      if (after.enabled !== enabled) after = null; // changed back meanwhile: again
    }
    if (ctx.json) return ctx.out(jsonText({ ...shownDestination(after), changed }, 2));
    if (!changed) return ctx.out(`Destination ${id} was already ${enabled ? "enabled" : "disabled"}`);
    const kept = `what waits for it is kept, untried, and sent once it is enabled again (relay enable ${id})`;
    ctx.out(
      enabled
        ? `Enabled destination ${id}: its paused entries are due again`
        : after.pinned
        ? `Disabled destination ${id}: it is pinned: a listen forwarding to it stops and removes it, with what waits ` +
          `for it; for a worker of a service's own started for it, ${kept}`
        : `Disabled destination ${id}: nothing is sent to it; ${kept}`,
    );
  });
}

/**
 * Removes a destination, the entries waiting for it and its dead letters; a pinned one's listen (if one runs) stops.
 * With --json: `{ "id", "removed": true }`.
 */
export function removeDestination(ctx: RelayContext, usageHint: (message: string) => Error): Promise<void> {
  return withDestinationId(ctx, usageHint, async (relay, id) => {
    const before = await relay.destinations.get(id);
    // Not there, or removed meanwhile (by another `relay remove`, say): either way this run removed nothing.
    if (before === null || !await relay.destinations.remove(id)) throw unknown(id);
    if (ctx.json) return ctx.out(jsonText({ id, removed: true }, 2));
    const pinned = before.pinned ? "; it was pinned: a listen forwarding to it stops" : "";
    ctx.out(`Removed destination ${id}, with the entries waiting for it and its dead letters${pinned}`);
  });
}
