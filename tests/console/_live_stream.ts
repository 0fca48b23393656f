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

/** Opens the event stream with `lastEventId`; collects its events until `stop`. */
export function openStream(origin: string, client: Client, lastEventId?: string) {
  const events: Sent[] = [];
  const done = new AbortController();
  const ready = Promise.withResolvers<void>();
  const ended = (async () => {
    const res = await fetch(`${origin}/deliveries/events`, {
      headers: {
        cookie: `cw_session=${client.cookies.get("cw_session")}`,
        ...(lastEventId ? { "last-event-id": lastEventId } : {}),
      },
      signal: done.signal,
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
        events.push({ event, ...(id !== undefined ? { id } : {}), data: /^data: (.*)$/m.exec(text)?.[1] ?? "" });
        if (event === "ready") ready.resolve();
      }
    }
  })().catch(() => {});
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
