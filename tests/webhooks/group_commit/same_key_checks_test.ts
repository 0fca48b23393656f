// Two jobs ready at once that check one key at different versionstamps (a
// postback decided on a stale cached record, the next on the fresh one): the
// shared commit checks each key once, so they must not share a group. The
// stale one must fail, the fresh one commit.

import assert from "node:assert/strict";
import { commitInGroup, type GroupJob } from "../../../webhooks/mod.ts";

const job = (name: string, versionstamp: string | null): GroupJob => ({
  checks: [{ key: ["record"], versionstamp }],
  build: (atomic) => void atomic.set(["stored", name], true),
});

Deno.test("a job checking a key at a stale versionstamp fails though a job checking it fresh is ready at once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const stale = (await kv.set(["record"], 1)).versionstamp;
    const fresh = (await kv.set(["record"], 2)).versionstamp;
    const results = await Promise.all([commitInGroup(kv, job("stale", stale)), commitInGroup(kv, job("fresh", fresh))]);
    assert.deepEqual(results.map((result) => result.kind), ["failed", "committed"]);
    assert.equal((await kv.get(["stored", "stale"])).value, null, "stored on a check that no longer held");
    assert.equal((await kv.get(["stored", "fresh"])).value, true);
  } finally {
    kv.close();
  }
});
