// Two processes numbering from one sequence counter at once: each group
// reads the counter and takes the numbers after it. The group that read it
// before the other's commit moved it must not commit those numbers: its
// writes would land on the other's (the second write at a number replaces
// the first).

import assert from "node:assert/strict";
import { commitInGroup, type GroupJob } from "../../../webhooks/mod.ts";
import { holdFirst } from "../../_hold_first.ts";

const job = (name: string): GroupJob => ({
  checks: [],
  sequence: ["log_seq"],
  count: 1,
  build: (atomic, first) => void atomic.set(["log", first], name),
});

Deno.test("two processes taking numbers from one counter at once get different numbers: neither write replaces the other", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const [a, b] = [await Deno.openKv(path), await Deno.openKv(path)];
  try {
    // The first process has read the counter and built its write at number 1; its commit waits for the second's.
    const held = holdFirst(a, (key) => key[0] === "log");
    const first = commitInGroup(a, job("a"));
    await held.held;
    assert.equal((await commitInGroup(b, job("b"))).kind, "committed");
    held.release();
    assert.equal((await first).kind, "committed");
    const logged = [];
    for await (const entry of a.list<string>({ prefix: ["log"] })) logged.push([entry.key[1], entry.value]);
    assert.deepEqual(logged, [[1, "b"], [2, "a"]]);
    assert.equal((await a.get(["log_seq"])).value, 2);
  } finally {
    a.close();
    b.close();
    await Deno.remove(path);
  }
});
