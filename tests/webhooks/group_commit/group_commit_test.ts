// The group commit's building of a job's writes as it is submitted: at the
// numbers it then takes, built once; again only when a job ahead of it
// failed and its numbers moved; a build that throws fails that job alone.

import assert from "node:assert/strict";
import { commitInGroup, type GroupJob } from "../../../webhooks/mod.ts";

/**
 * Makes the commits of `kv`'s atomic operations wait while the gate is
 * closed (the group committer is kept per KV object, so the object is
 * changed in place); reads and single writes go straight through.
 */
function gate(kv: Deno.Kv): { close(): void; open(): void } {
  let shut: PromiseWithResolvers<void> | null = null;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      await shut?.promise;
      return await commit();
    };
    return op;
  };
  return { close: () => shut = Promise.withResolvers(), open: () => shut?.resolve() };
}

/** A job that logs `name` at each of its `count` numbers, noting the first number of every build. */
function logJob(name: string, calls: [string, number][], count = 1, checks: Deno.AtomicCheck[] = []): GroupJob {
  return {
    checks,
    sequence: ["log_seq"],
    count,
    build: (atomic, first) => {
      calls.push([name, first]);
      for (let i = 0; i < count; i++) atomic.set(["log", first + i], name);
    },
  };
}

async function log(kv: Deno.Kv): Promise<[number, unknown][]> {
  const out: [number, unknown][] = [];
  for await (const e of kv.list({ prefix: ["log"] })) out.push([e.key[1] as number, e.value]);
  return out;
}

/**
 * Runs `fn` on a new `:memory:` KV after a first job ("a", number 1) read the
 * counter there: it was built when its group was taken, as nothing told its
 * numbers before. `calls` lists every build's job and first number.
 */
async function afterFirstJob(fn: (kv: Deno.Kv, calls: [string, number][]) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    const calls: [string, number][] = [];
    assert.equal((await commitInGroup(kv, logJob("a", calls))).kind, "committed");
    assert.deepEqual(calls, [["a", 1]]);
    await fn(kv, calls);
  } finally {
    kv.close();
  }
}

Deno.test("a job's writes are built as it is submitted, at the numbers it then takes, once", async () => {
  await afterFirstJob(async (kv, calls) => {
    const { close, open } = gate(kv);
    close();
    // While a group is being committed, the jobs after it are built at once, after its numbers.
    const b = commitInGroup(kv, logJob("b", calls, 2));
    assert.deepEqual(calls.at(-1), ["b", 2], "built before commitInGroup returned");
    await new Promise((resolve) => setTimeout(resolve, 10)); // b's group is at the (gated) KV now
    const c = commitInGroup(kv, logJob("c", calls));
    const d = commitInGroup(kv, logJob("d", calls, 3));
    assert.deepEqual(calls.slice(1), [["b", 2], ["c", 4], ["d", 5]]);
    open();
    const results = await Promise.all([b, c, d]);
    assert.deepEqual(results.map((r) => r.kind === "committed" && r.first), [2, 4, 5]);
    assert.equal(calls.length, 4, "no job was built twice");
    assert.deepEqual(await log(kv), [[1, "a"], [2, "b"], [3, "b"], [4, "c"], [5, "d"], [6, "d"], [7, "d"]]);
    assert.equal((await kv.get(["log_seq"])).value, 7);
  });
});

Deno.test("a job built at numbers that moved (a job ahead of it failed) is built again at those it takes", async () => {
  await afterFirstJob(async (kv, calls) => {
    const { close, open } = gate(kv);
    close();
    const guard = { key: ["guard"], versionstamp: null };
    const x = commitInGroup(kv, logJob("x", calls, 1, [guard]));
    const y = commitInGroup(kv, logJob("y", calls, 2));
    assert.deepEqual(calls.slice(1), [["x", 2], ["y", 3]]);
    // x's check fails before the group commits: y goes again, numbered where x would have been.
    await kv.set(["guard"], 1);
    open();
    const [rx, ry] = await Promise.all([x, y]);
    assert.equal(rx.kind, "failed");
    assert.deepEqual(ry.kind === "committed" && ry.first, 2);
    assert.deepEqual(calls.slice(1), [["x", 2], ["y", 3], ["y", 2]]);
    assert.deepEqual(await log(kv), [[1, "a"], [2, "y"], [3, "y"]]);
    assert.equal((await kv.get(["log_seq"])).value, 3);
  });
});

Deno.test("a build that throws as its job is submitted fails that job alone, taking no number", async () => {
  await afterFirstJob(async (kv, calls) => {
    const broken = commitInGroup(kv, {
      checks: [],
      sequence: ["log_seq"],
      count: 1,
      build: () => {
        throw new Error("cannot build");
      },
    });
    const next = commitInGroup(kv, logJob("b", calls));
    const failed = await broken;
    assert.equal(failed.kind, "error");
    assert.match(String(failed.kind === "error" && (failed.error as Error).message), /cannot build/);
    const stored = await next;
    assert.deepEqual(stored.kind === "committed" && stored.first, 2);
    assert.deepEqual(await log(kv), [[1, "a"], [2, "b"]]);
  });
});
