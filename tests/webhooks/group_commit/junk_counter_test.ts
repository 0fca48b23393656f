// A counter a job sums that holds something other than a 64-bit counter (an
// operator's hand edit, a bad write): Deno KV refuses the sum at the commit,
// yet keeps the mutations added before it. The group commit must still keep
// its promise for an "error" result, "nothing of it was written": a job whose
// counter is junk stores none of its other writes, alone or in a group, and
// once the counter is mended the same job commits whole.

import assert from "node:assert/strict";
import { commitInGroup, type GroupJob } from "../../../webhooks/mod.ts";

const job = (name: string): GroupJob => ({
  checks: [{ key: ["claim", name], versionstamp: null }],
  build: (atomic) => void atomic.set(["claim", name], true).set(["item", name], name).sum(["wake"], 1n),
});

async function stored(kv: Deno.Kv, prefix: string): Promise<unknown[]> {
  return await Array.fromAsync(kv.list({ prefix: [prefix] }), (e) => e.key[1]);
}

Deno.test("a job summing a counter edited into junk fails and writes nothing, alone and in a group", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(["wake"], "junk");
    const alone = await commitInGroup(kv, job("a"));
    assert.equal(alone.kind, "error");
    const together = await Promise.all(["b", "c", "d"].map((name) => commitInGroup(kv, job(name))));
    assert.deepEqual(together.map((r) => r.kind), ["error", "error", "error"]);
    assert.deepEqual(await stored(kv, "claim"), [], "no claim of a failed job");
    assert.deepEqual(await stored(kv, "item"), [], "no item of a failed job");
    assert.equal((await kv.get(["wake"])).value, "junk");
    // Mended, the same jobs commit whole: the counter counts each once.
    await kv.delete(["wake"]);
    const again = await Promise.all(["a", "b", "c", "d"].map((name) => commitInGroup(kv, job(name))));
    assert.deepEqual(again.map((r) => r.kind), Array(4).fill("committed"));
    assert.deepEqual(await stored(kv, "item"), ["a", "b", "c", "d"]);
    assert.equal((await kv.get<Deno.KvU64>(["wake"])).value?.value, 4n);
  } finally {
    kv.close();
  }
});
