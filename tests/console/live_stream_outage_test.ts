// The live deliveries' stream during a KV outage: each stream adds a listener on the console's closing signal, and
// one whose first read of the log fails must take it off again, or every failed stream leaks one until the console
// closes (a browser retrying its EventSource every few seconds through an outage adds one each time).

import assert from "node:assert/strict";
import { withSignedIn } from "./_helpers.ts";

/** Counts, per abort signal, the "abort" listeners added and not taken off while it runs. */
async function countingAbortListeners(fn: () => Promise<void>): Promise<number[]> {
  const held = new Map<EventTarget, Set<unknown>>();
  const proto = EventTarget.prototype;
  const { addEventListener: add, removeEventListener: remove } = proto;
  proto.addEventListener = function (this: EventTarget, type: string, fn: unknown, options?: unknown) {
    if (type === "abort" && this instanceof AbortSignal && fn) {
      held.set(this, (held.get(this) ?? new Set()).add(fn));
    }
    return add.call(this, type, fn as EventListener, options as AddEventListenerOptions);
  };
  proto.removeEventListener = function (this: EventTarget, type: string, fn: unknown, options?: unknown) {
    if (type === "abort") held.get(this)?.delete(fn);
    return remove.call(this, type, fn as EventListener, options as EventListenerOptions);
  };
  try {
    await fn();
  } finally {
    proto.addEventListener = add;
    proto.removeEventListener = remove;
  }
  return [...held].filter(([signal]) => !(signal as AbortSignal).aborted).map(([, fns]) => fns.size);
}

Deno.test("a live stream whose first read of the log fails (KV down) takes its listener off the closing signal", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    // The outage: the stream's first read of the log fails.
    t.app.deliveries.liveReader = () => {
      throw new Error("KV unavailable");
    };
    const streams = 5;
    const held = await countingAbortListeners(async () => {
      for (let i = 0; i < streams; i++) {
        const res = await client.fetch("/deliveries/events");
        await res.body?.cancel();
      }
      // The streams' ends run after their answers' heads.
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    assert.ok(
      held.every((n) => n < streams),
      `a signal holds a listener per failed stream: ${JSON.stringify(held)}`,
    );
  });
});
