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

/** Counts the `sum` mutations added to `kv`'s atomic operations. */
function sumsCounted(kv: Deno.Kv): () => number {
  let sums = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const sum = op.sum.bind(op);
    op.sum = (key, n) => {
      sums++;
      return sum(key, n);
    };
    return op;
  };
  return () => sums;
}

Deno.test("a group adds to a counter its jobs sum with one sum of their amounts, wrapping past 2^64 as sums do", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const sums = sumsCounted(kv);
    const big = 2n ** 64n - 2n;
    const jobs = [1n, 2n, 3n, big].map((n, i) =>
      commitInGroup(kv, {
        checks: [],
        build: (atomic) => void atomic.set(["item", i], i).sum(["wake"], n).sum(["other"], 1n),
      })
    );
    assert.deepEqual((await Promise.all(jobs)).map((r) => r.kind), Array(4).fill("committed"));
    assert.equal(sums(), 2, "one sum of each counter for the four jobs");
    assert.equal((await kv.get<Deno.KvU64>(["wake"])).value?.value, 4n); // 1 + 2 + 3 + 2^64 - 2, modulo 2^64
    assert.equal((await kv.get<Deno.KvU64>(["other"])).value?.value, 4n);
  } finally {
    kv.close();
  }
});

Deno.test("a job that sums a key and then sets it keeps that order in a group", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const results = await Promise.all([
      commitInGroup(kv, { checks: [], build: (atomic) => void atomic.sum(["wake"], 1n) }),
      commitInGroup(kv, {
        checks: [],
        build: (atomic) => void atomic.sum(["own"], 1n).set(["own"], new Deno.KvU64(5n)).sum(["wake"], 1n),
      }),
    ]);
    assert.deepEqual(results.map((r) => r.kind), ["committed", "committed"]);
    assert.equal((await kv.get<Deno.KvU64>(["own"])).value?.value, 5n); // the set came last
    assert.equal((await kv.get<Deno.KvU64>(["wake"])).value?.value, 2n);
  } finally {
    kv.close();
  }
});

Deno.test("a job whose sum KV refuses fails alone; the sums of the others in its group are added", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const results = await Promise.all([
      commitInGroup(kv, { checks: [], build: (atomic) => void atomic.sum(["wake"], 1n) }),
      commitInGroup(kv, { checks: [], build: (atomic) => void atomic.sum(["wake"], 1 as unknown as bigint) }),
      commitInGroup(kv, { checks: [], build: (atomic) => void atomic.sum(["wake"], 2n) }),
    ]);
    assert.deepEqual(results.map((r) => r.kind), ["committed", "error", "committed"]);
    assert.equal((await kv.get<Deno.KvU64>(["wake"])).value?.value, 3n);
  } finally {
    kv.close();
  }
});
