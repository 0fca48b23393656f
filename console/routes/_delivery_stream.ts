/**
 * The live deliveries' event stream (`GET /deliveries/events`, routed in
 * `deliveries.tsx`): `ready` once the log is read, then each new delivery
 * once, and a `ping` every 10 s, until the client goes, the session ends or
 * the console closes. Each delivery event's id is the highest number the
 * stream has sent (a late commit is sent after higher ones), so a client that
 * reconnects with it as `Last-Event-ID` (an `EventSource` does by itself) is
 * sent what was stored past it, and nothing it was sent.
 *
 * @module
 */

import type { SSEStreamingApi } from "hono/streaming";
import type { Deps } from "../lib/context.ts";
import type { DeliveryView } from "../log/mod.ts";

/** Time between keep-alive events on an idle event stream. */
const HEARTBEAT_MS = 10_000;

/** Sends the stream's deliveries until its client goes, its session ends or the console closes. */
export async function liveStream(
  stream: SSEStreamingApi,
  deps: Deps,
  hookId: string | undefined,
  sessionId: string | undefined,
  resumeAfter?: number,
): Promise<void> {
  const done = new AbortController();
  // Aborting the stream also ends a write that waits for a client that stopped reading.
  const stop = () => {
    done.abort();
    stream.abort();
  };
  stream.onAbort(stop);
  deps.closing.addEventListener("abort", stop, { once: true });
  try {
    await send(stream, deps, { hookId, sessionId, resumeAfter }, done.signal, stop);
  } finally {
    // Every way out, a failed first read of the log (KV down) too: else each failed stream leaves its listener.
    deps.closing.removeEventListener("abort", stop);
  }
}

/** Reads the log and sends its deliveries until `signal` aborts (from past `resumeAfter` when given). */
async function send(
  stream: SSEStreamingApi,
  deps: Deps,
  at: { hookId: string | undefined; sessionId: string | undefined; resumeAfter?: number },
  signal: AbortSignal,
  stop: () => void,
): Promise<void> {
  const { hookId, sessionId, resumeAfter } = at;
  // Each delivery once, late commits too: the reader reads the log's settle window again.
  const reader = deps.deliveries.liveReader(hookId);
  const missed = await reader.start(resumeAfter);
  const newest = await deps.deliveries.list({ hookId, limit: 1 });
  /** The highest number sent, or shown (the newest as the stream starts): each event's id, where a resume starts. */
  let sent = resumeAfter ?? newest[0]?.seq ?? 0;
  const sendAll = async (views: DeliveryView[]) => {
    for (const view of views) {
      sent = Math.max(sent, view.seq);
      await stream.writeSSE({
        event: "delivery",
        id: String(sent),
        data: JSON.stringify({ id: view.id, hookId: view.hookId, seq: view.seq }),
      });
    }
  };
  const heartbeat = setInterval(() => {
    // A named event, not a comment: the leading tab passes it on as its sign of life (islands/_live.ts), which a
    // timer of a background tab, throttled by the browser to once a minute, could not be.
    stream.writeSSE({ event: "ping", data: "" }).catch(stop);
    // The session is checked here too, not only when deliveries arrive: a stuck write checks nothing.
    deps.sessions.get(sessionId).then((session) => session || stop(), () => {});
  }, HEARTBEAT_MS);
  try {
    await stream.writeSSE({ event: "ready", data: String(newest[0]?.seq ?? 0) });
    // Stored while a resumed stream's client was away.
    await sendAll(missed);
    await deps.deliveries.watch(signal, async () => {
      // The session may end while the stream is open (sign-out,
      // expiry): the stream ends with it.
      if (!(await deps.sessions.get(sessionId))) return stop();
      await sendAll(await reader.next());
    });
  } catch {
    // the client went away mid-write
  } finally {
    clearInterval(heartbeat);
  }
}
