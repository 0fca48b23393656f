/**
 * `keepServing`: `Deno.serve` on a TCP port that outlives a failed accept.
 *
 * When the process runs out of file descriptors (held connections: a slow
 * client, an attacker, a burst of postbacks), Deno.serve's accept fails with
 * "Too many open files", its listener closes and its `finished` rejects; the
 * rejection, unhandled, ends the process. `onError` sees handler errors only.
 * Here the failed server drains what it still serves (`shutdown()`, which
 * also closes its idle connections), the failure is said once per episode,
 * and the same address is listened on again after a back-off that grows while
 * it keeps failing (new connections are refused meanwhile). Its first request
 * ends the episode.
 *
 * @module
 */

/** The back-off before listening again: the first, and the most it grows to (doubling while it keeps failing). */
const FIRST_RETRY_MS = 100;
const MOST_RETRY_MS = 3_200;

/** What {@linkcode keepServing} takes: Deno.serve's TCP options, and whom to tell of an episode. */
export interface KeepServingOptions extends Deno.ServeTcpOptions {
  /**
   * Told once per episode that no new connection can be taken: `message` says why in plain words, written to follow
   * a subject (`the console ${message}`). Told once more should listening again fail for another reason than
   * descriptors (the address taken meanwhile by another program). By default a warning on stderr.
   */
  onDown?: (message: string, error: Error) => void;
  /** Told once new connections are taken again (the first request after an episode). By default a line on stderr. */
  onUp?: (message: string) => void;
}

/** Says something: a line that cannot be written (stderr gone) stops neither the serving nor a request. */
function tell(say: () => void): void {
  try {
    say();
  } catch {
    // Nowhere to say it.
  }
}

/** Whether `error` is running out of file descriptors, the process's (os error 24) or the system's (23). */
function outOfDescriptors(error: unknown): boolean {
  return error instanceof Error && /os error 2[34]\b|too many open files/i.test(error.message);
}

/** An error's message on one line, at most 200 characters. */
function oneLine(error: Error): string {
  return error.message.replace(/\s+/g, " ").slice(0, 200);
}

/** Plain words for a listen again that failed otherwise than for descriptors. */
function relistenReasonOf(error: Error): string {
  const why = error instanceof Deno.errors.AddrInUse
    ? "the address is in use (another program took it meanwhile)"
    : oneLine(error);
  return `${why}; it tries again, at most ${MOST_RETRY_MS / 1000} s apart`;
}

/** Plain words for an accept that failed: for running out of descriptors, which limit and what happens meanwhile. */
function reasonOf(error: Error): string {
  if (/os error 23\b|too many open files in system/i.test(error.message)) {
    return "too many open files in the system (the machine's file descriptors are used up); " +
      "new connections are refused until some close";
  }
  if (outOfDescriptors(error)) {
    return "too many open files (this process holds as many file descriptors as its limit, ulimit -n, allows); " +
      "new connections are refused until some close";
  }
  return `${oneLine(error)}; new connections are refused meanwhile`;
}

/**
 * Serves `handler` like `Deno.serve(options, handler)` on a TCP port, and keeps serving when an accept fails (the
 * process out of file descriptors): the same hostname and port are listened on again, after 0.1 s growing to 3.2 s
 * while it keeps failing. `onListen` is called for the first listen only. `shutdown()` stops it as Deno.serve's does
 * (no new connection, the requests under way answered), the servers an episode left draining included.
 *
 * ```ts
 * import { keepServing } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const server = keepServing({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"));
 * const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
 * assert.equal(await res.text(), "ok");
 * await server.shutdown();
 * ```
 *
 * @param options Deno.serve's TCP options (`port`, `hostname`, `signal`, `onListen`, ...), with `onDown` and `onUp`.
 * @param handler Deno.serve's handler.
 * @returns A server as Deno.serve's: `finished` settles once it is shut down (or `signal` aborts) and all drained.
 */
export function keepServing(
  options: KeepServingOptions,
  handler: Deno.ServeHandler<Deno.NetAddr>,
): Deno.HttpServer<Deno.NetAddr> {
  const { onDown, onUp, ...serveOptions } = options;
  let current: Deno.HttpServer<Deno.NetAddr>;
  let generation = 0;
  let downSince: number | null = null;
  let delay = FIRST_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopping = false;
  let held = true;
  /** Whether this episode said already that listening again fails otherwise than for descriptors. */
  let relistenSaid = false;
  const draining = new Set<Promise<void>>();
  const failed = new WeakSet<Deno.HttpServer<Deno.NetAddr>>();
  let finish = () => {};
  const finished = new Promise<void>((resolve) => finish = resolve);
  const where = () => {
    const host = current.addr.hostname.includes(":") ? `[${current.addr.hostname}]` : current.addr.hostname;
    return `http://${host}:${current.addr.port}`;
  };

  const serve = (first: boolean): Deno.HttpServer<Deno.NetAddr> => {
    const mine = ++generation;
    const server = Deno.serve({
      ...serveOptions,
      ...(first ? {} : { port: current.addr.port, onListen: () => {} }),
    }, (request, info) => {
      if (downSince !== null && mine === generation) up();
      return handler(request, info);
    });
    if (!held) server.unref();
    track(server.finished.then(() => {}, (error: unknown) => {
      if (stopping || serveOptions.signal?.aborted) return;
      down(error instanceof Error ? error : new Error(String(error)));
    }));
    return server;
  };

  /** Keeps `drained` among what `finished` waits for, until it settles. */
  const track = (drained: Promise<void>) => {
    draining.add(drained);
    drained.finally(() => {
      draining.delete(drained);
      settle();
    });
  };

  /** Says `message` through `onDown`, or as a warning on stderr. */
  const sayDown = (message: string, error: Error) =>
    tell(() => onDown ? onDown(message, error) : console.warn(`Warning: the server ${message}`));

  const settle = () => {
    if ((stopping || serveOptions.signal?.aborted) && draining.size === 0) finish();
  };

  const down = (error: Error) => {
    if (downSince === null) {
      downSince = Date.now();
      sayDown(`cannot take new connections on ${where()}: ${reasonOf(error)}`, error);
    } else {
      delay = Math.min(delay * 2, MOST_RETRY_MS);
    }
    // What it still serves is answered; its idle connections close, which gives descriptors back.
    failed.add(current);
    track(current.shutdown().catch(() => {}));
    retry();
  };

  const retry = () => {
    clearTimeout(timer);
    const next = setTimeout(() => {
      timer = undefined;
      if (stopping || serveOptions.signal?.aborted) return;
      try {
        current = serve(false);
      } catch (error) {
        // No descriptor for the listener yet, or the address taken meanwhile: try again, later. The latter is said
        // once, since "refused until some close" is then no longer the reason.
        if (!relistenSaid && !outOfDescriptors(error)) {
          relistenSaid = true;
          const cause = error instanceof Error ? error : new Error(String(error));
          sayDown(`cannot listen again on ${where()}: ${relistenReasonOf(cause)}`, cause);
        }
        delay = Math.min(delay * 2, MOST_RETRY_MS);
        retry();
      }
    }, delay);
    timer = next;
    if (!held) Deno.unrefTimer(next);
  };

  const up = () => {
    const seconds = Math.round((Date.now() - downSince!) / 1000);
    downSince = null;
    relistenSaid = false;
    delay = FIRST_RETRY_MS;
    const message = `takes new connections again on ${where()} (${seconds} s after it could not)`;
    tell(() => onUp ? onUp(message) : console.warn(`The server ${message}`));
  };

  current = serve(true);
  serveOptions.signal?.addEventListener("abort", () => {
    clearTimeout(timer);
    settle();
  }, { once: true });

  const shutdown = async () => {
    stopping = true;
    clearTimeout(timer);
    await Promise.all([failed.has(current) ? undefined : current.shutdown().catch(() => {}), ...draining]);
    settle();
    await finished;
  };
  return {
    finished,
    get addr() {
      return current.addr;
    },
    ref() {
      held = true;
      current.ref();
      if (timer !== undefined) Deno.refTimer(timer);
    },
    unref() {
      held = false;
      current.unref();
      if (timer !== undefined) Deno.unrefTimer(timer);
    },
    shutdown,
    [Symbol.asyncDispose]: shutdown,
  };
}
