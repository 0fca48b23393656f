/**
 * Two processes on one KV file (two `Deno.openKv` of it stand in for them): process A removes a pinned destination
 * while process B, whose worker was started for it, still has it in its list (trusted for a second). B's housekeeping
 * must not write the destination's held mark (`["relay_pin_held", id]`) back after A's removal deleted it: nothing
 * would ever delete it again.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

Deno.test("a worker whose list still has a pinned destination removed elsewhere does not write its held mark back", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const a = createRelay(kvA, { allowPrivateNetwork: true });
  const b = createRelay(kvB, { allowPrivateNetwork: true });
  try {
    await seedHooks(kvA);
    const { id } = await b.destinations.add({ url: "http://127.0.0.1:9/hooks", pinned: true });
    assert.equal((await b.destinations.list()).length, 1); // B's list has it, confirmed now
    assert.equal(await a.destinations.remove(id), true);
    const worker = b.run({ destinations: [id] }); // its first housekeeping runs at once, on B's list
    await worker.stop(); // waits for that housekeeping
    assert.equal((await kvA.get(["relay_pin_held", id])).versionstamp, null, "the held mark written back");
  } finally {
    await a.close();
    await b.close();
    kvA.close();
    kvB.close();
    await Deno.remove(path).catch(() => {});
  }
});
