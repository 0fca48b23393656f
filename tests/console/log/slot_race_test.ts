// Two processes leasing the one free writer slot at the same moment: both
// read it free, and only one may get it. Two owners of a slot number their
// rows alike, and the second row committed at a number overwrites the first:
// a delivery gone from the log.

import assert from "node:assert/strict";
import { Allocator, SLOTS } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";
import { holdFirst } from "../../_hold_first.ts";

Deno.test("two processes leasing the last free writer slot at once: one gets it, the other numbers nothing", () =>
  withTwoHandles(async (a, b) => {
    // The other slots are leased by live processes: both go for the last one.
    const until = Date.now() + 600_000;
    for (let slot = 1; slot < SLOTS; slot++) await a.set(["console_delivery_slot", slot], { owner: "other", until });
    const [first, second] = [new Allocator(a), new Allocator(b)];
    // The first has read the slot free; its lease commit waits until the second has leased it.
    const held = holdFirst(a, (key) => key[0] === "console_delivery_slot");
    const leasing = first.ready().then(() => true, () => false);
    await held.held;
    await second.ready();
    held.release();
    const got = await leasing;
    assert.equal(second.slot, 0);
    assert.ok(!got || first.slot !== second.slot, "two processes hold writer slot 0 at once");
    if (got) assert.notEqual(first.take(1), second.take(1));
  }));
