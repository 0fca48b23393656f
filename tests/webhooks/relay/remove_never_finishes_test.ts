/**
 * A removal that fails at every look (its dead letters cannot be listed) must not keep housekeeping from its later
 * work: settleRemoved tries every unfinished removal and then throws the first failure, and housekeeping stopped
 * there, so a pinned destination that no worker held any more was never removed.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

/** Makes every listing of destination `id`'s dead letters throw, as a removal that cannot finish. */
function breakRemoval(kv: Deno.Kv, id: string): void {
  const list = kv.list.bind(kv);
  kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    if ("prefix" in selector && selector.prefix[0] === "relay_dead_by_destination" && selector.prefix[1] === id) {
      throw new Error("broken");
    }
    return list(selector, options);
  }) as Deno.Kv["list"];
}

Deno.test("a removal that never finishes holds back no removal of an abandoned pinned destination", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = { t: Date.now() };
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10, schedule: [], now: () => clock.t });
  try {
    await seedHooks(kv);
    const stuck = await relay.destinations.add({ url: "http://127.0.0.1:9/stuck" });
    const pinned = await relay.destinations.add({ url: "http://127.0.0.1:9/pinned", pinned: true });
    breakRemoval(kv, stuck.id);
    await assert.rejects(relay.destinations.remove(stuck.id), /broken/);
    await relay.run().stop(); // a first look at the pinned destination, held by no worker
    clock.t += 11 * 60_000; // past the time a pinned destination held by no worker is kept
    await relay.run().stop(); // the next look finds it abandoned
    const ids = (await relay.destinations.list()).map((d) => d.id);
    assert.equal(ids.includes(pinned.id), false, "the abandoned pinned destination removed");
    assert.equal((await kv.get(["relay_removed", stuck.id])).value !== null, true, "the stuck removal still marked");
  } finally {
    await relay.close();
    kv.close();
  }
});
