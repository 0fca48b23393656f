/**
 * One-time buttons: a form whose action has a side effect on the platform or
 * the receiver ("Send test event", "Replay to receiver", a delivery's
 * "Redeliver") carries a one-time token (lib/form_tokens.ts) for what it acts
 * on, so that a double click, a second tab's submission or the same POST sent
 * again lands where the first one did instead of acting twice.
 *
 * @module
 */

import type { Context } from "hono";
import { type ConsoleEnv, type Deps, sessionIdOf } from "../lib/context.ts";
import { FormTokens } from "../lib/form_tokens.ts";

/**
 * What a submission does: act (`go`), land where the first one did, or be refused (`expired`, or `busy`: the first
 * did not end within the wait, still under way or its console stopped).
 */
export type Turn = { go: true } | { location: string } | { refused: "expired" | "busy" };

/** A one-time button's token, for the session `c` answers and the action `scope` (such as `test\n<hook id>`). */
export function onceToken(c: Context<ConsoleEnv>, deps: Deps, scope: string): Promise<string> {
  return new FormTokens(deps.kv).issue(sessionIdOf(c, deps), scope);
}

/**
 * Takes the turn of a submission of a one-time button: the first goes ahead; a second one waits for the first and
 * lands where it did, or goes ahead when the first changed nothing ({@linkcode ended} with no `location`).
 */
export async function takeTurn(c: Context<ConsoleEnv>, deps: Deps, token: string, scope: string): Promise<Turn> {
  const tokens = new FormTokens(deps.kv);
  for (;;) {
    try {
      if (await tokens.take(token, sessionIdOf(c, deps), scope) === null) return { go: true };
    } catch (err) {
      // Missing, made up, another session's or another action's; a store that failed is no expired button.
      if (!(err instanceof TypeError)) throw err;
      return { refused: "expired" };
    }
    let settled = await tokens.settled(token);
    // Still in progress after the wait: the console that took it may have been killed mid-way (another process on
    // this KV takes the form sent again). Marked so, later resends get this answer at once, not after another wait.
    if (settled !== null && Object.keys(settled).length === 0) settled = await tokens.unfinished(token);
    if (settled?.location) return { location: settled.location };
    if (settled) return { refused: "busy" };
    // The first one changed nothing and gave the token back: this one tries.
  }
}

/**
 * Ends a submission that took its turn: with the redirect it answers (a second submission lands there too), or
 * with none when it changed nothing, so that the button may be used again.
 */
export async function ended(deps: Deps, token: string, location?: string): Promise<void> {
  const tokens = new FormTokens(deps.kv);
  if (location === undefined) await tokens.release(token);
  else await tokens.led(token, location);
}
