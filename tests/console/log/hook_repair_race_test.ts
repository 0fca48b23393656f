// Two processes each put back a late row of one hook into the same pack at
// once (each wrote a row whose commit landed after another process's index
// pass went past its number). Each rewrites the pack it read with its own
// row added: the second to commit must not drop the first one's row.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { onCommit } from "../_kv_faults.ts";
import { holdFirst } from "../../_hold_first.ts";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("two processes repairing one hook pack at once each keep the other's late row in the hook's listing", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const [a, b, c] = [await Deno.openKv(path), await Deno.openKv(path), await Deno.openKv(path)];
  try {
    const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
    const holding = [false, false];
    const writers = [a, b].map((kv, i) =>
      new DeliveryStore(onCommit(kv, () => holding[i] ? gates[i].promise : undefined), { settleMs: 300 })
    );
    const other = new DeliveryStore(c, { settleMs: 300 });
    // Each writer holds its writer slot first (leasing one is a commit of its own).
    for (const [i, writer] of writers.entries()) await writer.add("h2", [{ activity: { title: `first ${i}` } }]);
    await other.add("h1", [{ activity: { title: "before" } }]);
    // Numbered now, committed once another process's pass went past their numbers.
    holding[0] = holding[1] = true;
    const late = writers.map((writer, i) => writer.add("h1", [{ activity: { title: `late ${i}` } }]));
    await wait(50);
    holding[0] = holding[1] = false;
    for (let n = 0; n < 5; n++) await other.add("h1", [{ activity: { title: `after ${n}` } }]);
    await wait(600);
    await other.index(); // one pack of h1 spans both late numbers; neither row is there yet
    const mark = (await c.get<number>(["console_delivery_hook_mark"])).value!;
    for (const gate of gates) gate.resolve();
    const rows = (await Promise.all(late)).map(([row]) => row);
    for (const row of rows) assert.ok(mark > row.seq, "the pass went past the late row before it was stored");
    // The first writer's repair of the pack waits until the second's has rewritten it.
    const held = holdFirst(a, (key) => key[0] === "console_delivery_hook_pack");
    const first = writers[0].index();
    await held.held;
    await writers[1].index();
    held.release();
    await first;
    const expected = (await other.list({ limit: 100 })).filter((view) => view.hookId === "h1").map((view) => view.seq);
    for (const row of rows) assert.ok(expected.includes(row.seq));
    const listed = (await other.list({ hookId: "h1", limit: 100 })).map((view) => view.seq);
    assert.deepEqual(listed, expected, "the hook's listing holds both late rows");
  } finally {
    for (const kv of [a, b, c]) kv.close();
    await Deno.remove(path);
  }
});
