// An open live deliveries stream (`/deliveries/events`) as a test reads it: every event with its id, optionally
// resumed with `Last-Event-ID` (tests/console/live_resume_test.ts, tests/console/log/log_processes_test.ts).

import assert from "node:assert/strict";
import type { Client } from "./_helpers.ts";

/** One event as sent. */
export interface Sent {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads the live stream of `client` (resumed after `lastEventId` when given), passing each event to `onEvent` as it
 * comes, until the stream ends or `signal` aborts (both reject: the caller says which it expected).
 */
export async function readEvents(
  origin: string,
  client: Client,
  onEvent: (sent: Sent) => void,
  options: { lastEventId?: string; signal: AbortSignal },
): Promise<void> {
  const res = await fetch(`${origin}/deliveries/events`, {
    headers: {
      cookie: `cw_session=${client.cookies.get("cw_session")}`,
      ...(options.lastEventId ? { "last-event-id": options.lastEventId } : {}),
    },
    signal: options.signal,
  });
  assert.equal(res.status, 200);
  let buffer = "";
  for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const text = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(text)?.[1] ?? "message";
      const id = /^id: (.*)$/m.exec(text)?.[1];
      onEvent({ event, ...(id !== undefined ? { id } : {}), data: /^data: (.*)$/m.exec(text)?.[1] ?? "" });
    }
  }
  throw new Error("the live stream ended");
}

/** Opens the event stream with `lastEventId`; collects its events until `stop`. */
export function openStream(origin: string, client: Client, lastEventId?: string) {
  const events: Sent[] = [];
  const done = new AbortController();
  const ready = Promise.withResolvers<void>();
  const ended = readEvents(origin, client, (sent) => {
    events.push(sent);
    if (sent.event === "ready") ready.resolve();
  }, { lastEventId, signal: done.signal }).catch(() => {});
  return {
    events,
    ready: ready.promise,
    ids: () => events.filter((e) => e.event === "delivery").map((e) => JSON.parse(e.data).id as string),
    lastId: () => events.filter((e) => e.id !== undefined).at(-1)?.id,
    async stop() {
      done.abort();
      await ended;
    },
  };
}

/** Waits until `what` holds, at most `ms`. */
export async function until(what: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
