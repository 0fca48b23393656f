// `listen --forward-to URL [--hook ID,...]`: forwards postbacks of the hooks
// named (every hook when none) to a URL on this machine, as `stripe listen`
// does. It adds a pinned destination (so only this process delivers it),
// runs a relay worker for it that prints one line per attempt, and removes
// the destination when it ends (Ctrl-C). A listener killed outright leaves
// its destination behind until a worker sees it unheld for 10 minutes.

import { createRelay, type RelayAttempt } from "../relay/mod.ts";

/** What `listen` takes of a command's context (the command table's own context has all of it). */
export interface ListenContext {
  kv: Deno.Kv;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  secret(flag: string, variable: string): string | undefined;
  signal: AbortSignal;
}

/** The printed line of one attempt: time, hook, status, duration, entry id (and why, when it failed). */
export function attemptLine(
  attempt: RelayAttempt & { entryId: string; hookId: string },
): string {
  const time = new Date(attempt.time).toISOString().replace("T", " ").slice(0, 19);
  const status = attempt.status === 0 ? "ERR" : String(attempt.status);
  const ms = `${Math.round(attempt.durationMs)} ms`;
  return [time, attempt.hookId, status, ms.padStart(7), attempt.entryId, attempt.error ?? ""].join("  ").trimEnd();
}

/** Runs `listen` until `ctx.signal` aborts. */
export async function listen(ctx: ListenContext, usage: (message: string) => Error): Promise<void> {
  const forwardTo = String(ctx.flags["forward-to"]);
  const hookIds = typeof ctx.flags.hook === "string"
    ? ctx.flags.hook.split(",").map((h) => h.trim()).filter(Boolean)
    : undefined;
  if (hookIds?.length === 0) throw usage("--hook needs one or more hook ids, separated by commas");
  const kv = ctx.kv;
  // The URL is on this machine: allowed here (API.md), and reached from this process alone (pinned).
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const secret = ctx.secret("secret", "WEBHOOK_SECRET");
  const destination = await relay.destinations.add({
    url: forwardTo,
    pinned: true,
    ...(hookIds ? { hookIds } : {}),
    ...(secret ? { secret } : {}),
  });
  try {
    ctx.err(
      `Forwarding postbacks of ${hookIds ? `hooks ${hookIds.join(", ")}` : "every hook"} to ${destination.url}` +
        ` (destination ${destination.id}; Ctrl-C to stop)`,
    );
    // Shown once, as `add` returns it, so the app can verify signatures; not when it came from WEBHOOK_SECRET.
    if (!secret) ctx.err(`Signing secret (shown once): ${destination.secret}`);
    const worker = relay.run({
      destinations: [destination.id],
      signal: ctx.signal,
      onAttempt: (attempt) => ctx.out(ctx.json ? JSON.stringify(attempt) : attemptLine(attempt)),
    });
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await worker.stop();
  } finally {
    await relay.destinations.remove(destination.id);
    await relay.close();
    ctx.err(`Removed destination ${destination.id}`);
  }
}
