// A pinned destination's held mark (["relay_pin_held", id]) edited by hand into junk, or left so by a bad write: a
// NaN, a string, an object, a time years ahead. No worker holds the destination (its `listen` was killed), so it is
// removed once the mark has stood still for 10 minutes of the remover's (test) clock, as a mark of a number would be.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

const START = Date.UTC(2026, 5, 1);

async function removedDespite(mark: unknown): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  const pass = async () => {
    const worker = relay.run(); // its housekeeping runs at its start, and stop waits for it
    await new Promise((r) => setTimeout(r, 50));
    await worker.stop();
  };
  try {
    const pinned = await relay.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    await kv.set(["relay_pin_held", pinned.id], mark);
    await pass(); // the mark first seen
    clock.t += 11 * 60_000;
    await pass(); // unchanged for 11 minutes of this clock: no worker holds it
    assert.equal(await relay.destinations.get(pinned.id), null, `kept with the mark ${String(mark)}`);
  } finally {
    await relay.close();
    kv.close();
  }
}

Deno.test("a pinned destination whose held mark is NaN is removed after 10 minutes", () => removedDespite(NaN));
Deno.test("a pinned destination whose held mark is a string is removed", () => removedDespite("yesterday"));
Deno.test("a pinned destination whose held mark is an object is removed", () => removedDespite({ at: START }));
Deno.test("a pinned destination whose held mark is years ahead is removed", () => removedDespite(START + 3e11));
