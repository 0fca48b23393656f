// Several groups in flight on a remote KV (KV Connect, where commits are
// round trips): over random interleavings of copies of one header, failed
// members and jobs that write the same keys, nothing is stored twice, nothing
// committed is lost, nothing is stored in part, and no two commits in flight
// at once touch the same key (so copies of one header never commit in two
// groups at once).

import assert from "node:assert/strict";
import fc from "fast-check";
import { commitInGroup, type GroupJob, type GroupResult } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** One commit as the KV saw it: the keys it wrote, those it only checked, those it only summed, and when it was out. */
interface Commit {
  keys: Set<string>;
  checked: Set<string>;
  summed: Set<string>;
  start: number;
  end: number;
}

/** Makes `kv` note every atomic commit's keys and time out (the committer is kept per KV object). */
function watchCommits(kv: Deno.Kv, commits: Commit[]): void {
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const keys = new Set<string>();
    const checked = new Set<string>();
    const summed = new Set<string>();
    const id = (key: Deno.KvKey) => JSON.stringify(key, (_k, v) => typeof v === "bigint" ? `${v}n` : v);
    const note = (key: Deno.KvKey) => keys.add(id(key));
    const check = op.check.bind(op);
    op.check = (...checks) => {
      for (const c of checks) checked.add(id(c.key));
      return check(...checks);
    };
    for (const name of ["set", "delete", "sum", "min", "max"] as const) {
      const original = (op[name] as (...args: unknown[]) => Deno.AtomicOperation).bind(op);
      (op as unknown as Record<string, unknown>)[name] = (key: Deno.KvKey, ...rest: unknown[]) => {
        if (name === "sum") summed.add(id(key));
        else note(key);
        return original(key, ...rest);
      };
    }
    const commit = op.commit.bind(op);
    op.commit = async () => {
      for (const key of summed) if (checked.has(key)) keys.add(key);
      for (const key of keys) checked.delete(key), summed.delete(key);
      const entry: Commit = { keys, checked, summed, start: performance.now(), end: Infinity };
      commits.push(entry);
      try {
        return await commit();
      } finally {
        entry.end = performance.now();
      }
    };
    return op;
  };
}

/** A job of the model: a header it claims, a key it may share with others, a check that may be stale. */
interface Model {
  header: number;
  shared: number | null;
  stale: boolean;
  delayMs: number;
}

const model = fc.record({
  header: fc.integer({ min: 0, max: 7 }),
  shared: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  stale: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  delayMs: fc.integer({ min: 0, max: 4 }),
});

Deno.test("groups in flight on a remote KV store each header once and whole, and touch one key at once only to sum it", async () => {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    const commits: Commit[] = [];
    watchCommits(kv, commits);
    let most = 0;
    let sumsTogether = 0;
    let checksTogether = 0;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(model, { minLength: 2, maxLength: 30 }), async (jobs: Model[]) => {
        const r = `r${run++}`;
        const from = commits.length;
        // A stale check: read a key, then move it before the job goes.
        const moving = await kv.get([r, "moving"]);
        // A key every job checks and none writes (as every postback checks its community's record).
        const community = await kv.get([r, "community"]);
        await kv.set([r, "moving"], "moved");
        const results = await Promise.all(jobs.map(async (m, i): Promise<GroupResult> => {
          await new Promise((resolve) => setTimeout(resolve, m.delayMs));
          const job: GroupJob = {
            checks: [{ key: [r, "claim", m.header], versionstamp: null }, community],
            build: (atomic) => {
              if (m.stale) atomic.check({ key: [r, "moving"], versionstamp: moving.versionstamp });
              atomic.set([r, "claim", m.header], i).set([r, "item", i], m.header);
              if (m.shared !== null) atomic.sum([r, "shared", m.shared], 1n);
            },
          };
          return await commitInGroup(kv, job);
        }));
        const committed = jobs.map((_, i) => i).filter((i) => results[i].kind === "committed");
        for (const [i, result] of results.entries()) {
          assert.notEqual(result.kind, "error", `job ${i}: ${JSON.stringify(result)}`);
          if (jobs[i].stale) assert.equal(result.kind, "failed", `job ${i} rests on a stale check`);
        }
        // Each header is stored once, by one job, whole: its claim names that job, and only its item exists.
        for (let header = 0; header <= 7; header++) {
          const winners = committed.filter((i) => jobs[i].header === header);
          assert.ok(winners.length <= 1, `header ${header} stored by jobs ${winners}`);
          const claim = await kv.get<number>([r, "claim", header]);
          const copies = jobs.map((_, i) => i).filter((i) => jobs[i].header === header && !jobs[i].stale);
          if (copies.length > 0) assert.equal(winners.length, 1, `header ${header}: copies ${copies}, none stored`);
          assert.equal(claim.value, winners[0] ?? null);
        }
        for (let i = 0; i < jobs.length; i++) {
          const stored = await kv.get([r, "item", i]);
          assert.equal(stored.value !== null, committed.includes(i), `job ${i}'s item`);
        }
        for (let s = 0; s <= 2; s++) {
          const count = (await kv.get<Deno.KvU64>([r, "shared", s])).value?.value ?? 0n;
          assert.equal(count, BigInt(committed.filter((i) => jobs[i].shared === s).length), `shared ${s}`);
        }
        // No two commits out at once touched one key, but for a key both only checked or both only summed.
        const mine = commits.slice(from).filter((c) => ![...c.keys].some((k) => k.includes("__group_commit_probe")));
        for (let a = 0; a < mine.length; a++) {
          let together = 1;
          for (let b = 0; b < mine.length; b++) {
            if (a === b || mine[b].start >= mine[a].end || mine[a].start >= mine[b].end) continue;
            together++;
            const { keys, checked, summed } = mine[b];
            const shared = [
              ...[...mine[a].keys].filter((k) => keys.has(k) || checked.has(k) || summed.has(k)),
              ...[...mine[a].checked].filter((k) => keys.has(k) || summed.has(k)),
              ...[...mine[a].summed].filter((k) => keys.has(k) || checked.has(k)),
            ];
            assert.deepEqual(shared, [], "two commits in flight at once touched the same keys");
            if ([...mine[a].summed].some((k) => summed.has(k))) sumsTogether++;
            if ([...mine[a].checked].some((k) => checked.has(k))) checksTogether++;
          }
          most = Math.max(most, together);
        }
      }),
      { numRuns: 25 },
    );
    assert.ok(most > 1, `never more than one group in flight (at most ${most})`);
    assert.ok(sumsTogether > 0, "groups that only sum one key never went in flight together");
    assert.ok(checksTogether > 0, "groups that only check one key never went in flight together");
  } finally {
    kv.close();
    await server.close();
  }
});
