// A commit that lands later than the settle window after its number was
// taken (a remote commit stalled, a KV file locked that long): the hook
// index's mark may have passed its number meanwhile, packed by another
// process that could not see it. The process that wrote it knows it was
// late, and puts it in its hook's packs at its next pass.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { onCommit, withTwoHandles } from "../_kv_faults.ts";

async function lateRowPassed(otherHook: string, finish = (writer: DeliveryStore) => writer.index()): Promise<void> {
  await withTwoHandles(async (a, b) => {
    let hold = false;
    // The late commit waits until the other process's pass went past its number (a gate, not a timer: on a slow
    // machine a timer could let it land first, and the test would then not test a late row).
    const gate = Promise.withResolvers<void>();
    const slow = onCommit(a, () => hold ? gate.promise : undefined);
    const writer = new DeliveryStore(slow, { settleMs: 300 });
    const other = new DeliveryStore(b, { settleMs: 300 });
    await writer.add("h1", [{ activity: { title: "first" } }]);
    // Numbered now, committed once the mark passed it.
    hold = true;
    const late = writer.add("h1", [{ activity: { title: "late" } }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    hold = false;
    for (let n = 0; n < 5; n++) await other.add(otherHook, [{ activity: { title: `o${n}` } }]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await other.index(); // its mark passes the late row's number: the row is not there yet
    const passed = (await b.get<number>(["console_delivery_hook_mark"])).value!;
    gate.resolve();
    const [row] = await late;
    assert.ok(passed > row.seq, "the first pass went past the late row before it was stored");
    for (let n = 0; n < 5; n++) await other.add(otherHook, [{ activity: { title: `p${n}` } }]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await other.index();
    const mark = (await b.get<number>(["console_delivery_hook_mark"])).value!;
    assert.ok(mark > row.seq, "the mark passed the late row");
    await finish(writer);
    const all = (await writer.list({ limit: 100 })).map((view) => view.seq);
    const hook = (await writer.list({ hookId: "h1", limit: 100 })).map((view) => view.seq);
    assert.ok(all.includes(row.seq));
    const expected = (await writer.list({ limit: 100 })).filter((view) => view.hookId === "h1").map((v) => v.seq);
    assert.deepEqual(hook, expected, "the hook's listing holds every row of the log, in order");
    const page = await other.page({ hookId: "h1" });
    assert.deepEqual(page.values.map((view) => view.seq), expected);
  });
}

Deno.test("a row committed a second after its number, past another process's index pass, is listed by its hook", () =>
  lateRowPassed("h1"));

Deno.test("a late row the mark passed with no pack of its hook around it gets a pack of its own, in order", () =>
  lateRowPassed("h2"));

Deno.test("a late row the mark passed is put in its hook's packs when its writer flushes (closes) with no pass to run", () =>
  lateRowPassed("h2", (writer) => writer.flush()));
