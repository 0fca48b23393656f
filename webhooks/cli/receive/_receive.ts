// The `receive` command: serves a receiver, one JSON line per item of each
// verified postback on stdout, until Ctrl-C (or SIGTERM). A stop answers the
// postbacks under way first: Deno.serve's `signal` closed every connection at
// once, so a postback whose body was still arriving got no answer at all, and
// `server.shutdown()` alone cut its body short (a 400). Postbacks that come
// while the stop waits are refused with a 503, which a platform retries.
// Held connections that use up the process's file descriptors end Deno.serve's
// server (its accept fails): keepServing says so once and listens again.

import { createReceiver } from "../../receiver/mod.ts";
import { failureLines } from "./_failure_lines.ts";
import { storedFaultLines } from "./_stored_faults.ts";
import { keepServing } from "../../net/mod.ts";
import type { Webhooks } from "../../webhooks.ts";

/** What `receive` takes of a command's context (the command table's own context has all of it). */
export interface ReceiveContext {
  hooks: Webhooks;
  flags: Record<string, string | boolean | undefined>;
  out(text: string): void;
  err(text: string): void;
  /** Aborts on Ctrl-C (or SIGTERM): the postbacks under way are answered, then the command ends. */
  signal: AbortSignal;
}

/** The answer to a postback that comes once the command is stopping. */
function stopping(): Response {
  return new Response(JSON.stringify({ error: "Service unavailable: the receiver is stopping" }), {
    status: 503,
    headers: { "content-type": "application/json; charset=utf-8", "retry-after": "5", connection: "close" },
  });
}

/** Serves postbacks on `--hostname` and `--port` until `ctx.signal` aborts and those under way are answered. */
export async function receive(ctx: ReceiveContext, usage: (message: string) => Error): Promise<void> {
  const port = ctx.flags.port === undefined ? 8080 : Number(ctx.flags.port);
  if (!/^\d{1,5}$/.test(String(ctx.flags.port ?? 8080)) || port > 65535) {
    throw usage(`--port must be a whole number from 0 to 65535, got '${ctx.flags.port}'`);
  }
  const hostname = typeof ctx.flags.hostname === "string" ? ctx.flags.hostname : "127.0.0.1";
  // Each answer of 500 or more (the platform retries it) is said on stderr, a run of them coalesced (_failure_lines.ts).
  const failures = failureLines(ctx.err);
  // A 401 whose cause is the stored community (no client secret, a damaged record) is said once per tenant.
  const storedFault = storedFaultLines(ctx.err);
  // A line that cannot be printed (stdout's reader gone) is a throw in onPostback: the postback is answered 500, not
  // taken, and the platform sends it again; receive then stops serving and throws what the print threw.
  const unprintable = new AbortController();
  let unprinted: { error: unknown } | null = null;
  const ended = AbortSignal.any([ctx.signal, unprintable.signal]);
  const receiver = createReceiver(ctx.hooks, {
    onPostback: ({ activity, webhook, community, receivedAt, postbackId, index, count }) => {
      const line = JSON.stringify({
        receivedAt: new Date(receivedAt).toISOString(),
        tenantId: community.tenantId,
        webhook: webhook.id,
        postbackId,
        index,
        count,
        activity,
      });
      try {
        ctx.out(line);
      } catch (error) {
        unprinted ??= { error };
        unprintable.abort();
        throw error;
      }
    },
    // Once a line could not be printed, the 500s of the lines that follow it are the reader's choice, not failures.
    onAttempt: (attempt) => {
      if (unprinted !== null) return;
      failures.attempt(attempt);
      storedFault(attempt);
    },
  });
  let underWay = 0;
  let answered = () => {};
  const handle = async (request: Request, info: Deno.ServeHandlerInfo): Promise<Response> => {
    if (ended.aborted) return stopping();
    underWay++;
    try {
      return await receiver.handle(request, info);
    } finally {
      if (--underWay === 0) answered();
    }
  };
  let server: Deno.HttpServer;
  try {
    server = keepServing({
      port,
      hostname,
      onListen: (addr) => ctx.err(`Receiving postbacks on http://${addr.hostname}:${addr.port}/ (Ctrl-C to stop)`),
      onDown: (message) => ctx.err(`Warning: the receiver ${message}`),
      onUp: (message) => ctx.err(`The receiver ${message}`),
    }, handle);
  } catch (error) {
    // Deno's words name neither the flag nor the address: a malformed host is the flag's value at fault (status 2).
    if (error instanceof URIError) {
      throw usage(`--hostname must be a host name or an IP address, got '${hostname}'`);
    }
    const address = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
    throw new Error(`Cannot receive on ${address} (--hostname, --port): ${(error as Error).message}`);
  }
  // A body still arriving takes at most the receiver's body timeout; a second Ctrl-C ends the process at once.
  const stop = async () => {
    if (underWay > 0) await new Promise<void>((resolve) => answered = resolve);
    await server.shutdown();
  };
  const stopped = ended.aborted ? stop() : new Promise<void>((resolve, reject) => {
    ended.addEventListener("abort", () => stop().then(resolve, reject), { once: true });
  });
  await Promise.race([server.finished, stopped]);
  await server.finished;
  failures.end();
  if (unprinted) throw (unprinted as { error: unknown }).error;
}
