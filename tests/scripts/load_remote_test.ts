// The load test past one machine: which rows a run holds, their names, and a
// short set over a KV Connect server whose books balance across two consoles.

import assert from "node:assert/strict";
import { loadFixture } from "../../scripts/load_postbacks.ts";
import { parseOnly, remoteLabel, remoteSets, remoteTarget, ROW_SETS, runRemoteSet } from "../../scripts/load_remote.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";
import { watchKvToken } from "./_env_watch.ts";

Deno.test("parseOnly(): every set by default, a comma-separated list, and a RangeError naming the sets otherwise", () => {
  assert.deepEqual([...parseOnly(undefined)], [...ROW_SETS]);
  assert.deepEqual([...parseOnly("remote")], ["remote"]);
  assert.deepEqual([...parseOnly("local, remote-latency")], ["local", "remote-latency"]);
  for (const value of ["", "remote,", "far"]) {
    assert.throws(() => parseOnly(value), {
      name: "RangeError",
      message: `--only must list row sets among local, remote, remote-latency, got '${value}'`,
    });
  }
});

Deno.test("remoteSets(): one process at 16 and 64 connections and two at 16 each, on time and held back", () => {
  assert.deepEqual(remoteSets(parseOnly(undefined), 20), [
    { processes: 1, latencyMs: 0, connections: 16 },
    { processes: 1, latencyMs: 0, connections: 64 },
    { processes: 2, latencyMs: 0, connections: 16 },
    { processes: 1, latencyMs: 20, connections: 16 },
    { processes: 1, latencyMs: 20, connections: 64 },
    { processes: 2, latencyMs: 20, connections: 16 },
  ]);
  assert.deepEqual(remoteSets(parseOnly("remote-latency"), 35), [
    { processes: 1, latencyMs: 35, connections: 16 },
    { processes: 1, latencyMs: 35, connections: 64 },
    { processes: 2, latencyMs: 35, connections: 16 },
  ]);
  assert.deepEqual(remoteSets(parseOnly("local"), 20), []);
});

Deno.test("remoteTarget() and remoteLabel(): a receiver row names its floor row, and the set reads plainly", () => {
  const set = { processes: 2, latencyMs: 20, connections: 16 };
  assert.equal(remoteTarget("receiver", set), "receiver · KV Connect +20 ms · 2 processes");
  // The report finds a receiver's floor by replacing the word (and by the connections, a column of its own).
  assert.equal(remoteTarget("receiver", set).replace("receiver", "floor"), remoteTarget("floor", set));
  assert.equal(remoteTarget("floor", { processes: 1, latencyMs: 0, connections: 64 }), "floor · KV Connect");
  assert.equal(remoteLabel(set), "KV Connect +20 ms, 2 processes, 16 connections each");
  assert.equal(remoteLabel({ processes: 1, latencyMs: 0, connections: 16 }), "KV Connect, 1 process, 16 connections");
  assert.equal(remoteLabel({ processes: 1, latencyMs: 0, connections: 64 }), "KV Connect, 1 process, 64 connections");
});

Deno.test({
  name: "runRemoteSet(): two floors and two consoles on one KV over KV Connect, 2 s each, and the books balance",
  // Starts five processes (the KV Connect server, two floors, two consoles) and sends for 6 s in all (a second of warm-up each, then 2 s each).
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "cw-load-remote-" });
    let seq = 0;
    try {
      const set = { processes: 2, latencyMs: 5, connections: 4 };
      // Every test module of this process shares Deno.env: each sets the one TEST_TOKEN, and so does this one.
      Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
      const watch = watchKvToken();
      const result = await runRemoteSet(set, {
        dir,
        fixture: loadFixture(),
        seconds: 2,
        rounds: 1,
        settleMs: 0,
        warmupSeconds: 1,
        next: () => ++seq,
      });
      assert.deepEqual(watch.stop(), [TEST_TOKEN], "DENO_KV_ACCESS_TOKEN changed while it ran");
      const [floor, receiver] = result.rows;
      assert.equal(floor.target, "floor · KV Connect +5 ms · 2 processes");
      assert.equal(receiver.target, "receiver · KV Connect +5 ms · 2 processes");
      assert.equal(floor.connections, 8);
      assert.ok(floor.ok > 0, `the floors answered ${floor.ok} postbacks 200`);
      assert.ok(receiver.ok > 0, `the consoles answered ${receiver.ok} postbacks 200`);
      // Each console took its share of the connections and stored through the shared KV.
      assert.equal(result.commitsByProcess.length, 2);
      for (const commits of result.commitsByProcess) {
        assert.ok(commits > 0, `commits by process: ${result.commitsByProcess}`);
      }
      // Counted from the shared KV after both consoles stopped: every postback answered 200, by either, stored once.
      assert.equal(result.books.answered, receiver.ok);
      // The consoles' warm-up, before the measured run, stored postbacks that no row counts as answered.
      // Beyond the few in flight when a run ended (at most one per connection), stored but not counted.
      assert.ok(result.books.stored - result.books.answered > receiver.connections, JSON.stringify(result.books));
      assert.equal(result.books.lost, 0);
      assert.equal(result.books.duplicated, 0);
      assert.equal(result.verdict.ratios.length, 1);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
