// `relay attempts` and `relay redeliver`: what happened to one entry, and
// sending dead letters again. An id that is no entry id is a usage error
// before anything is read or sent; one that names no entry fails (status 1).

import { damagedAttempts, type Relay } from "../../relay/mod.ts";
import { jsonText, quoted, table } from "../_format.ts";
import { badEntryId, type RelayContext, shownTime, withRelay } from "./_with_relay.ts";
import { kindOf } from "../../_util.ts";

/** Why an entry has no attempt recorded, by `relay.entryState`. */
const NONE: Record<string, string> = {
  waiting: "it waits in the outbox, not tried yet",
  paused: "it is kept untried while its destination is disabled (relay enable sends it)",
  dead: "it is a dead letter, its attempts older than 30 days",
  null: "no entry waits or is a dead letter under that id (a delivered entry's attempts are kept 30 days)",
};

/** An attempt's ERROR cell: its text; blank when none; a record edited into another kind there said damaged. */
function errorCell(error: unknown): string {
  if (error === undefined || error === null) return "";
  if (typeof error === "string") return error;
  return `damaged record: 'error' must be a string, got ${kindOf(error)}`;
}

/** Prints one entry's attempts, oldest first: a table, or with --json each with its answer's first 1 KiB. */
export function listAttempts(ctx: RelayContext, usageHint: (message: string) => Error): Promise<void> {
  const [id] = ctx.args;
  const bad = badEntryId([id]);
  if (bad !== null) return Promise.reject(usageHint(bad));
  return withRelay(ctx, async (relay) => {
    const attempts = await relay.attempts(id);
    if (attempts.length === 0) {
      const damaged = await damagedAttempts(ctx.kv, id);
      if (damaged > 0) {
        throw new Error(
          `No attempt of entry ${quoted(id)} can be read: the ${damaged} attempt ` +
            `${damaged === 1 ? "record stored under it is" : "records stored under it are"} damaged ` +
            "(edited into another shape)",
        );
      }
      throw new Error(`No attempts are recorded for entry ${quoted(id)}: ${NONE[String(await relay.entryState(id))]}`);
    }
    if (ctx.json) return ctx.out(jsonText(attempts, 2));
    ctx.out(table(
      ["TIME", "STATUS", "DURATION", "ERROR"],
      attempts.map((a) => [
        shownTime(a.time),
        a.status === 0 ? "none" : a.status,
        typeof a.durationMs === "number" ? `${Math.round(a.durationMs)} ms` : "",
        errorCell(a.error),
      ]),
    ));
  });
}

/** What `relay redeliver` did with each id. */
interface Redelivered {
  sent: string[];
  notDeadLetters: string[];
  failed: { id: string; error: string }[];
}

/**
 * Throws a `RangeError` (as `relay.redeliver` does) when `id` is a dead letter whose destination was removed (its
 * dead letters go with it) or is disabled: sent again, it would only wait there untried (a 410 from the app disables
 * its destination), so it is left a dead letter, as the console's Redeliver leaves it.
 */
async function refuseUnsendable(relay: Relay, id: string): Promise<void> {
  const letter = await relay.deadLetter(id);
  if (letter === null) return;
  const destination = await relay.destinations.get(letter.destinationId);
  if (destination === null) throw new RangeError(`its destination ${letter.destinationId} was removed`);
  if (!destination.enabled) {
    throw new RangeError(
      `its destination ${destination.id} is disabled: enable it, then redeliver (relay enable ${destination.id}, ` +
        "the console's Forward to page, or relay.destinations.update(id, { enabled: true }) in code)",
    );
  }
}

/**
 * Sends each dead letter named again; fails (status 1) naming those that were not, after trying every one. A KV that
 * fails ends it there, with the KV's error: every id left would fail alike (each after KV_TIMEOUT_SECONDS, say).
 */
export function redeliver(ctx: RelayContext, usageHint: (message: string) => Error): Promise<void> {
  const bad = badEntryId(ctx.args);
  if (bad !== null) return Promise.reject(usageHint(bad));
  const ids = [...new Set(ctx.args)];
  return withRelay(ctx, async (relay) => {
    const done: Redelivered = { sent: [], notDeadLetters: [], failed: [] };
    for (const id of ids) {
      let said: string;
      try {
        await refuseUnsendable(relay, id);
        const sent = await relay.redeliver(id);
        (sent ? done.sent : done.notDeadLetters).push(id);
        said = `${sent ? "Sent again" : "Not a dead letter"}: ${id}`;
      } catch (error) {
        // This entry's own (its destination removed or disabled, a RangeError): said, and the others still tried.
        // Anything else is the KV failing, as it would for every id left: the command ends there, naming it.
        if (!(error instanceof RangeError)) throw error;
        done.failed.push({ id, error: error.message });
        said = `Not sent again: ${id}: ${error.message}`;
      }
      // Outside the try: stdout's reader gone ends the command there, never counted as an entry not sent.
      if (!ctx.json) ctx.out(said);
    }
    if (ctx.json) ctx.out(jsonText(done, 2));
    const missed = [...done.notDeadLetters, ...done.failed.map((f) => f.id)];
    if (missed.length > 0) {
      throw new Error(
        `${missed.length} of ${ids.length} entries were not sent again: ${missed.map(quoted).join(", ")}`,
      );
    }
  });
}
