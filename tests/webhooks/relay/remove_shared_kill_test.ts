// An unpinned destination's waiting entries sit in the shared outbox, among
// every other destination's, and its removal deletes them a few hundred to a
// commit. A process killed (SIGKILL) between those commits left the rest
// "pending" in `forwards` until each came due, hours away in a retry's wait.
// The next worker's housekeeping finishes such a removal, as it does a pinned
// destination's.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { spawnChild } from "../_child.ts";
import { postback, seedHooks, until, writeAll } from "./fixtures.ts";

const CHILD = new URL("./_remove_child.ts", import.meta.url).pathname;
const N = 1_000;
const P = "s".repeat(64);
const HOUR = 3_600_000;

/** The shared outbox's entries bound for `destinationId`. */
async function sharedOf(kv: Deno.Kv, destinationId: string): Promise<number> {
  let n = 0;
  for await (const e of kv.list<{ destinationId: string }>({ prefix: ["relay_due", "*"] })) {
    if (e.value.destinationId === destinationId) n++;
  }
  return n;
}

Deno.test("a process killed mid-removal of an unpinned destination leaves entries that a worker's housekeeping deletes", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  // Written an hour ahead: each entry waits as one in a retry's wait does, so no worker reaches it when due.
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => Date.now() + HOUR });
  let child = null;
  try {
    await seedHooks(kv);
    const gone = await relay.destinations.add({ url: "http://127.0.0.1:9/gone", hookIds: ["h1"] });
    const kept = await relay.destinations.add({ url: "http://127.0.0.1:9/kept", hookIds: ["h2"] });
    await writeAll(kv, relay.write, Array.from({ length: N }, (_, i) => postback("h1", i, P)), 100);
    await writeAll(kv, relay.write, [postback("h2", 0, "t".repeat(64))]);
    assert.equal(await sharedOf(kv, gone.id), N);

    // Its removal's first commit, then one of the deletes of its entries (400 a commit); killed before the next.
    child = spawnChild(CHILD, [path, gone.id, "2"]);
    await child.waitFor("ready");
    await child.waitFor("commit 2");
    await child.kill();
    assert.equal(await relay.destinations.get(gone.id), null);
    const left = await sharedOf(kv, gone.id);
    assert.ok(left > 0 && left < N, `${left} of ${N} entries left: the kill was not mid-removal`);
    assert.equal((await relay.forwards(P)).length, left); // shown pending, for an hour

    const later = createRelay(kv, { pollMs: 50 }); // another process, after the crash
    const worker = later.run();
    try {
      await until(
        async () => await sharedOf(kv, gone.id) === 0 && (await later.forwards(P)).length === 0,
        10_000,
        "the removed destination's entries and forwards deleted",
      );
      assert.equal(await sharedOf(kv, kept.id), 1); // another destination's entry is left as it was
    } finally {
      await worker.stop();
      await later.close();
    }
  } finally {
    await child?.kill();
    await relay.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
