// A removal's deletes meet the write lock of a KV file shared by several
// processes ("database is locked") as every other commit of the relay does:
// they are made again until the lock is free, rather than the removal
// throwing after its destination is gone, its entries left to a worker's
// housekeeping and the caller told the removal failed.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, writeAll } from "./fixtures.ts";

const P = "l".repeat(64);

/** From `arm()` on, the `skip + 1`-th commit of an atomic operation fails once as a locked KV file's would. */
function lockOnce(kv: Deno.Kv, skip: number): { arm(): void; failed: () => boolean } {
  let armed = false;
  let seen = 0;
  let failed = false;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      if (armed && !failed && seen++ === skip) {
        failed = true;
        return Promise.reject(new Error("database is locked"));
      }
      return commit();
    };
    return op;
  };
  return { arm: () => void (armed = true), failed: () => failed };
}

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

for (const pinned of [true, false]) {
  Deno.test(`removing a${pinned ? " pinned" : "n unpinned"} destination whose entries' delete meets a locked KV file once deletes them all`, async () => {
    const kv = await Deno.openKv(":memory:");
    const lock = lockOnce(kv, 1); // the removal's own commit lands; the first commit of its deletes meets the lock
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    try {
      await seedHooks(kv);
      const destination = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks", pinned });
      await writeAll(kv, relay.write, Array.from({ length: 20 }, (_, i) => postback("h1", i, P)), 20);
      const partition = pinned ? destination.id : "*";
      assert.equal(await keysUnder(kv, ["relay_due", partition]), 20);
      lock.arm();
      assert.equal(await relay.destinations.remove(destination.id), true);
      assert.ok(lock.failed(), "the test's lock was met");
      assert.equal(await keysUnder(kv, ["relay_due", partition]), 0, "entries left waiting");
      assert.equal(await keysUnder(kv, ["relay_entry_by_postback", P]), 0, "forwards left pending");
    } finally {
      await relay.close();
      kv.close();
    }
  });
}
