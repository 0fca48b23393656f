// `listen --forward-to URL [--hook ID,...] [--print-secret]`: forwards
// postbacks of the hooks named (every hook when none) to a URL on this
// machine, as `stripe listen` does. It adds a pinned destination (so only
// this process delivers it), runs a relay worker for it that prints one line
// per attempt, and removes the destination when it ends (Ctrl-C; or a
// `410 Gone` from the app, which disables it, and then with status 1). A
// listener killed outright leaves its destination behind until a worker sees
// it unheld for 10 minutes. The signing secret is `WEBHOOK_SECRET` (or
// `--secret`), else one generated for the run; it is printed only with
// `--print-secret` (API.md: the CLI prints no secret unless asked).

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

/** Whether `secret` is `whsec_` and 24 to 64 bytes in base64 (what a relay destination takes). */
function wellFormedSecret(secret: string): boolean {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : "";
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return false;
  const bytes = base64.length / 4 * 3 - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);
  return bytes >= 24 && bytes <= 64;
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
  if (secret !== undefined && !wellFormedSecret(secret)) {
    throw usage(
      "WEBHOOK_SECRET (or --secret) must be whsec_ followed by 24 to 64 bytes in base64, as your app verifies with" +
        " (the value given is not shown); or leave it unset and run with --print-secret to see a generated one",
    );
  }
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
    if (ctx.flags["print-secret"] === true) {
      ctx.err(`Signing secret: ${destination.secret}`);
    } else if (!secret) {
      ctx.err(
        "Signatures use a secret generated for this run, not shown: to verify them, set WEBHOOK_SECRET=whsec_... here" +
          " and in your app, or run with --print-secret to see this one",
      );
    }
    // A `410 Gone` disables the destination (API.md): nothing more would reach the app, so listen ends.
    const gone = new AbortController();
    const worker = relay.run({
      destinations: [destination.id],
      signal: ctx.signal,
      onAttempt: (attempt) => {
        ctx.out(ctx.json ? JSON.stringify(attempt) : attemptLine(attempt));
        if (attempt.status === 410) gone.abort();
      },
    });
    const ended = AbortSignal.any([ctx.signal, gone.signal]);
    await new Promise<void>((resolve) => {
      if (ended.aborted) return resolve();
      ended.addEventListener("abort", () => resolve(), { once: true });
    });
    await worker.stop();
    if (gone.signal.aborted && !ctx.signal.aborted) {
      throw new Error(
        "The app answered 410 Gone, which disables a destination: listen stopped; start it again once the app" +
          " answers otherwise",
      );
    }
  } finally {
    await relay.destinations.remove(destination.id);
    await relay.close();
    ctx.err(`Removed destination ${destination.id}`);
  }
}
