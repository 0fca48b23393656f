// `relay destinations` and `relay dead-letters`: the relay's destinations
// (their URLs as the CLI shows URLs, never a secret: a stored destination's
// is not in what `list` gives) and its dead letters, paged through the whole
// store newest first as the other lists are.

import type { DeadLetter, Destination } from "../../relay/mod.ts";
import { jsonText, table } from "../_format.ts";
import { printPages } from "../_paged.ts";
import { shownUrl } from "../_shown.ts";
import { badDestinationId, type RelayContext, shownTime, unknownDestination, withRelay } from "./_with_relay.ts";

/** A destination as the command line shows it: its URL as {@linkcode shownUrl}, its fields those of `list`. */
export function shownDestination(d: Destination): Destination {
  const { id, url, hookIds, enabled, pinned, createdAt, damaged } = d;
  return {
    id,
    url: typeof url === "string" ? shownUrl(url) : url,
    ...(hookIds ? { hookIds } : {}),
    enabled,
    pinned,
    createdAt,
    ...(damaged !== undefined ? { damaged } : {}),
  };
}

const yesNo = (value: unknown) => value === true ? "yes" : value === false ? "no" : String(value ?? "");

/** Prints the destinations, oldest first: a table, or one JSON array. */
export function listDestinations(ctx: RelayContext): Promise<void> {
  return withRelay(ctx, async (relay) => {
    const all = (await relay.destinations.list()).map(shownDestination);
    if (ctx.json) return ctx.out(jsonText(all, 2));
    ctx.out(
      all.length === 0 ? "No destinations." : table(
        ["ID", "URL", "HOOKS", "ENABLED", "PINNED", "CREATED"],
        all.map((d) => [
          d.id,
          d.damaged === undefined ? d.url : `damaged record: ${d.damaged}`, // not a blank: what is wrong with it
          Array.isArray(d.hookIds) ? d.hookIds.join(",") : "all",
          yesNo(d.enabled),
          yesNo(d.pinned),
          shownTime(d.createdAt),
        ]),
      ),
    );
  });
}

/**
 * Prints the dead letters (of `--destination` when given), newest first, page by page. A `--destination` that is no
 * destination id is a usage error before anything is read, as an ID of `relay enable` is; one naming none fails.
 */
export function listDeadLetters(ctx: RelayContext, usageHint: (message: string) => Error): Promise<void> {
  const destinationId = typeof ctx.flags.destination === "string" ? ctx.flags.destination : undefined;
  const bad = destinationId === undefined ? null : badDestinationId(destinationId);
  if (bad !== null) return Promise.reject(usageHint(bad));
  return withRelay(ctx, async (relay) => {
    if (destinationId !== undefined && await relay.destinations.get(destinationId) === null) {
      throw unknownDestination(destinationId);
    }
    await printPages(ctx, {
      what: "dead letters",
      page: (cursor) => relay.deadLetters({ destinationId, newestFirst: true, limit: 500, cursor }),
      shown: (letter: DeadLetter) => letter,
      head: ["ID", "DESTINATION", "HOOK", "ATTEMPTS", "DIED", "REASON"],
      row: (l) => [l.id, l.destinationId, l.hookId, l.attempts, shownTime(l.deadAt), l.reason],
      none: "No dead letters.",
    });
  });
}
