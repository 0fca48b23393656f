// Two processes' index passes at once: each reads the hook index's mark,
// packs the rows above it and moves it. A pass that read the mark before
// the other moved it must not commit: its packs would repeat rows the other
// packed, and the mark would go back (the rows past it packed once more).

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";
import { holdFirst } from "../../_hold_first.ts";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("two index passes at once: the one that read the mark first packs nothing twice, nor moves the mark back", () =>
  withTwoHandles(async (a, b) => {
    const [first, second] = [new DeliveryStore(a, { settleMs: 100 }), new DeliveryStore(b, { settleMs: 100 })];
    for (let n = 0; n < 10; n++) await first.add("h1", [{ activity: { title: `a${n}` } }]);
    await wait(150);
    // The first pass has read the mark and packed rows; its commit waits until the second pass has committed.
    const held = holdFirst(a, (key) => key[0] === "console_delivery_hook_pack");
    const passing = first.index();
    await held.held;
    for (let n = 0; n < 5; n++) await second.add("h1", [{ activity: { title: `b${n}` } }]);
    await wait(150);
    await second.index();
    const mark = (await b.get<number>(["console_delivery_hook_mark"])).value!;
    held.release();
    await passing;
    assert.equal((await b.get<number>(["console_delivery_hook_mark"])).value, mark, "the mark went back");
    const expected = (await second.list({ limit: 100 })).map((view) => view.seq);
    assert.equal(expected.length, 15);
    const listed = (await second.list({ hookId: "h1", limit: 100 })).map((view) => view.seq);
    assert.deepEqual(listed, expected, "the hook's listing holds each row once");
  }));
