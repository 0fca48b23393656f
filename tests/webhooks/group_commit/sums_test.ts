// The group commit and `sum`: jobs that add to one counter (the relay's wake
// counter, bumped by every receiver job that forwards) share a group, since
// sums commute; a job that checks or sets that counter still waits for the
// next group.

import assert from "node:assert/strict";
import { commitInGroup, type GroupJob } from "../../../webhooks/mod.ts";

/** Counts the commits of `kv`'s atomic operations and holds them while the gate is closed. */
function counted(kv: Deno.Kv): { commits: () => number; close(): void; open(): void } {
  let shut: PromiseWithResolvers<void> | null = null;
  let commits = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      commits++;
      await shut?.promise;
      return await commit();
    };
    return op;
  };
  return { commits: () => commits, close: () => shut = Promise.withResolvers(), open: () => shut?.resolve() };
}

function summing(name: string): GroupJob {
  return { checks: [], build: (atomic) => void atomic.set(["item", name], name).sum(["wake"], 1n) };
}

Deno.test("jobs that sum one counter share a group; a job that checks the counter waits for the next", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const gate = counted(kv);
    gate.close();
    const first = commitInGroup(kv, summing("a"));
    await new Promise((resolve) => setTimeout(resolve, 10)); // a's group is at the (gated) KV now
    const waiting = ["b", "c", "d", "e"].map((name) => commitInGroup(kv, summing(name)));
    const checking = commitInGroup(kv, {
      checks: [],
      build: (atomic) => void atomic.check({ key: ["wake"], versionstamp: null }).set(["item", "f"], "f"),
    });
    gate.open();
    const results = await Promise.all([first, ...waiting, checking]);
    assert.deepEqual(results.slice(0, 5).map((r) => r.kind), Array(5).fill("committed"));
    assert.equal(results[5].kind, "failed"); // it ran after the sums, in a group of its own
    assert.equal(gate.commits(), 3, "a; b to e together; f");
    assert.equal((await kv.get<Deno.KvU64>(["wake"])).value?.value, 5n);
    const items = await Array.fromAsync(kv.list<string>({ prefix: ["item"] }), (e) => e.value);
    assert.deepEqual(items, ["a", "b", "c", "d", "e"]);
  } finally {
    kv.close();
  }
});
