// The group commit over KV Connect learns how many groups to keep in flight
// from the time its jobs take. The client's commits are slowed the way the
// two links of docs/scale-out.md slow them: a commit of several jobs
// waiting 40 ms for a delayed acknowledgement, or a server that works
// through commits one at a time at a fixed cost each (where jobs that share
// a commit share that cost). Sixteen writers, as the load test's sixteen
// connections.

import assert from "node:assert/strict";
import { commitInGroup } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

type Link = "stall" | "serial";

/** Slows `kv`'s commits as `link` does; returns the jobs (claims set) of each commit, in order. */
function slow(kv: Deno.Kv, link: Link): number[] {
  const sizes: number[] = [];
  let queue = Promise.resolve();
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    let jobs = 0;
    const set = op.set.bind(op);
    op.set = (key, value, options) => (key[0] === "claim" && jobs++, set(key, value, options));
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (jobs === 0) return await commit(); // the committer's probe for a remote KV
      sizes.push(jobs);
      if (link === "stall") {
        if (jobs > 1) await new Promise((r) => setTimeout(r, 40));
        return await commit();
      }
      const turn = queue.then(() => new Promise<void>((r) => setTimeout(r, 3)));
      queue = turn;
      await turn;
      return await commit();
    };
    return op;
  };
  return sizes;
}

async function run(link: Link, jobs: number): Promise<number[]> {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    const sizes = slow(kv, link);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < jobs) {
        const i = next++;
        const result = await commitInGroup(kv, {
          checks: [{ key: ["claim", i], versionstamp: null }],
          build: (atomic) => void atomic.set(["claim", i], i),
        });
        assert.equal(result.kind, "committed");
      }
    }));
    assert.equal(sizes.reduce((a, b) => a + b, 0), jobs, "each job committed once");
    return sizes;
  } finally {
    kv.close();
    await server.close();
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

Deno.test("over a link where commits queue at a fixed cost each, jobs come to share commits", async () => {
  const sizes = await run("serial", 2_000);
  // It starts at sixteen groups in flight: sixteen writers, each job alone.
  assert.ok(mean(sizes.slice(0, 50)) < 1.5, `first commits: ${mean(sizes.slice(0, 50))} jobs each`);
  // It learns that fewer groups, larger, take less time: the last commits carry several jobs.
  assert.ok(mean(sizes.slice(-50)) >= 3, `last commits: ${mean(sizes.slice(-50))} jobs each`);
});

Deno.test("over a link where a shared commit stalls, each job stays in a commit of its own", async () => {
  const sizes = await run("stall", 2_000);
  assert.ok(mean(sizes.slice(-200)) < 1.3, `last commits: ${mean(sizes.slice(-200))} jobs each`);
});
