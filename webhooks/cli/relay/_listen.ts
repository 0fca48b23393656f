// `listen --forward-to URL [--hook ID,...] [--print-secret]`: forwards
// postbacks of the hooks named (every hook when none) to a URL on this
// machine, as `stripe listen` does. It adds a pinned destination (so only
// this process delivers it), runs a relay worker for it that prints one line
// per attempt, and removes the destination when it ends (Ctrl-C or SIGTERM; or, with
// status 1, once the destination is disabled, by a `410 Gone` from the app
// or elsewhere, or removed elsewhere, or, over KV Connect, once a check of it
// is not answered within KV_TIMEOUT_SECONDS: the KV lost). A
// listener killed outright leaves its destination behind until a worker sees
// it unheld for 10 minutes. The signing secret is `WEBHOOK_SECRET` (or
// `--secret`), else one generated for the run, printed only with
// `--print-secret` (API.md: the CLI prints no secret unless asked; one given
// is the operator's own, and never printed).

import { createRelay, type RelayAttempt } from "../../relay/mod.ts";
import { listHookEntries } from "../../store/mod.ts";
import type { LastTask } from "../_interrupt.ts";
import { addRefusal, hookIdsFlag, printedSecret, secretFlag } from "./_destination_flags.ts";
import { KvTimeoutError } from "../_kv_limit.ts";
import { jsonText, printable } from "../_format.ts";

/** What `listen` takes of a command's context (the command table's own context has all of it). */
export interface ListenContext {
  kv: Deno.Kv;
  /** How to name the KV to the user (never a KV Connect URL). */
  kvName: string;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  secret(flag: string, variable: string): string | undefined;
  signal: AbortSignal;
  /** Sets (or clears) what a second Ctrl-C still does before the process ends. */
  lastly(task: LastTask | null): void;
}

/** The printed line of one attempt: time, hook, status, duration, entry id (and why, when it failed); one line. */
export function attemptLine(
  attempt: RelayAttempt & { entryId: string; hookId: string },
): string {
  const time = new Date(attempt.time).toISOString().replace("T", " ").slice(0, 19);
  const status = attempt.status === 0 ? "ERR" : String(attempt.status);
  const ms = `${Math.round(attempt.durationMs)} ms`;
  // The hook id is a stored record's (edited by hand, it may hold a line break: main escapes the rest, not `\n`).
  const fields = [time, attempt.hookId, status, ms.padStart(7), attempt.entryId, attempt.error ?? ""];
  return fields.map(printable).join("  ").trimEnd();
}

/** How often listen checks that its destination is still there and enabled. */
const DESTINATION_CHECK_MS = 1_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Runs `listen` until `ctx.signal` aborts. */
export async function listen(ctx: ListenContext, usage: (message: string) => Error): Promise<void> {
  const forwardTo = String(ctx.flags["forward-to"]);
  const hookIds = hookIdsFlag(ctx.flags, usage);
  const kv = ctx.kv;
  // The URL is on this machine: allowed here (API.md), and reached from this process alone (pinned).
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const secret = secretFlag((flag, variable) => ctx.secret(flag, variable), usage);
  // Read before the destination is added, so a KV that fails here leaves nothing behind.
  const noHooks = !hookIds && (await listHookEntries(kv, 1)).values.length === 0;
  const left = "the destination is left for a relay worker to remove once no worker held it for 10 minutes";
  // A second Ctrl-C while the destination is being added (its commit may have landed) can only leave it.
  ctx.lastly({ left });
  const destination = await relay.destinations.add({
    url: forwardTo,
    pinned: true,
    ...(hookIds ? { hookIds } : {}),
    ...(secret ? { secret } : {}),
  }).catch(async (error) => {
    ctx.lastly(null);
    await relay.close();
    throw addRefusal(error, { urlFlag: "forward-to", hookIds }, usage);
  });
  // A second Ctrl-C skips the wait for the worker (its deliveries in flight, given back through a KV that may be slow)
  // but still removes the destination, which would otherwise stand for 10 minutes (the hooks' postbacks piling up).
  ctx.lastly({
    doing: `removing destination ${destination.id}`,
    left,
    run: async () => {
      if (await relay.destinations.remove(destination.id)) ctx.err(`Removed destination ${destination.id}`);
    },
  });
  // A check the KV Connect KV did not answer within its limit (KV_TIMEOUT_SECONDS): the KV is lost, listen ends.
  let lost = null as KvTimeoutError | null;
  try {
    ctx.err(
      `Forwarding postbacks of ${hookIds ? `hooks ${hookIds.join(", ")}` : "every hook"} to ${destination.url}` +
        ` (destination ${destination.id}; Ctrl-C to stop)`,
    );
    if (noHooks) {
      // The CLI's default KV is ./webhooks.kv: beside a console on this machine, nothing of its postbacks comes here.
      const where = printable(ctx.kvName);
      ctx.err(
        `${where} has no webhook yet: nothing arrives until one is registered in it. Beside a console on this` +
          " machine, give its KV file: --kv .data/console.kv (or the console's KV_PATH)",
      );
    }
    const line = printedSecret(ctx.flags["print-secret"] === true, secret, destination.secret);
    if (line !== null) {
      ctx.err(line);
    } else if (!secret) {
      ctx.err(
        "Signatures use a secret generated for this run, not shown: to verify them, set WEBHOOK_SECRET=whsec_... here" +
          " and in your app, or run with --print-secret to see this one",
      );
    }
    // Nothing more would reach the app once the destination is disabled (a `410 Gone` does that, API.md) or
    // removed elsewhere (the console, say): listen then ends, rather than run on forwarding nothing.
    const gone = new AbortController();
    let answered410 = false;
    // A line that cannot be printed (stdout's reader gone: `| head -1`) ends listen as Ctrl-C does, then throws what
    // the print threw (main ends quietly, with 0, on that throw alone). The attempt itself was made and recorded.
    const unprintable = new AbortController();
    let unprinted: { error: unknown } | null = null;
    const stopped = AbortSignal.any([ctx.signal, unprintable.signal]);
    const worker = relay.run({
      destinations: [destination.id],
      signal: stopped,
      onAttempt: (attempt) => {
        try {
          ctx.out(ctx.json ? jsonText(attempt) : attemptLine(attempt));
        } catch (error) {
          unprinted ??= { error };
          unprintable.abort();
        }
        if (attempt.status === 410) {
          answered410 = true;
          gone.abort("disabled");
        }
      },
    });
    const ended = AbortSignal.any([stopped, gone.signal]);
    // Not awaited: a check that hangs (KV Connect out of reach retries for good) must not hold up the end.
    void (async () => {
      while (!ended.aborted) {
        await pause(DESTINATION_CHECK_MS, ended);
        if (ended.aborted) return;
        const now = await relay.destinations.get(destination.id).catch((error) => {
          if (error instanceof KvTimeoutError) {
            lost = error;
            gone.abort("lost");
          }
          return undefined; // a KV hiccup: next time
        });
        if (now === null) gone.abort("removed");
        else if (now?.enabled === false) gone.abort("disabled");
      }
    })();
    await new Promise<void>((resolve) => {
      if (ended.aborted) return resolve();
      ended.addEventListener("abort", () => resolve(), { once: true });
    });
    await worker.stop(); // its last attempts are printed by now (a 410's included)
    if (lost !== null && !ctx.signal.aborted) {
      throw new Error(`${lost.message}: listen stopped; start it again once the KV answers`);
    }
    if (gone.signal.aborted && !ctx.signal.aborted) {
      const why = answered410
        ? "The app answered 410 Gone, which disables a destination: listen stopped; start it again once the app" +
          " answers otherwise"
        : `This listener's destination was ${gone.signal.reason} elsewhere (the console, say): listen stopped;` +
          " start it again to go on forwarding";
      throw new Error(why);
    }
    // Thrown last: a stop the reader chose must not hide a failure meanwhile (the KV lost, a 410 never printed).
    if (unprinted) throw (unprinted as { error: unknown }).error;
  } finally {
    // Said only when this listener removed it: one removed elsewhere is told by the error above.
    const removed = await relay.destinations.remove(destination.id).catch((error) => {
      // The KV lost: the removal cannot reach it either, and the error thrown says the KV did not answer.
      if (!lost) throw error;
      ctx.err(`Destination ${destination.id} not removed: ${left}`);
      return false;
    });
    ctx.lastly(null);
    await relay.close();
    if (removed) ctx.err(`Removed destination ${destination.id}`);
  }
}
