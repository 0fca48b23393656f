// A pinned destination's waiting entries outlive its removal only for a
// moment: a process killed (SIGKILL) between the commit that removes it and
// those that delete its entries, or a write by a process whose list of
// destinations still had it, leaves entries in a partition that no worker
// reads. A worker's housekeeping deletes them, and their state for
// `forwards`, as it does the kept entries of a removed destination.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { spawnChild } from "../_child.ts";
import { postback, seedHooks, until, writeAll } from "./fixtures.ts";

const CHILD = new URL("./_remove_child.ts", import.meta.url).pathname;
const N = 1_000;
const P = "k".repeat(64);

/** The keys under `prefix`. */
async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}

/** What is left of destination `id` in the outbox: its partition's entries and take counter, its forwards. */
async function leftOf(kv: Deno.Kv, id: string): Promise<number> {
  const due = await keysUnder(kv, ["relay_due", id]);
  const take = (await kv.get(["relay_take", id])).versionstamp === null ? 0 : 1;
  return due.length + take + (await keysUnder(kv, ["relay_entry_by_postback", P])).length;
}

Deno.test("a process killed mid-removal of a pinned destination leaves entries that a worker's housekeeping deletes", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  let child = null;
  try {
    await seedHooks(kv);
    const pinned = await relay.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    await writeAll(kv, relay.write, Array.from({ length: N }, (_, i) => postback("h1", i, P)), 100);
    assert.equal((await keysUnder(kv, ["relay_due", pinned.id])).length, N);

    // Its removal's first commit, then one of the deletes of its entries (400 a commit); killed before the next.
    child = spawnChild(CHILD, [path, pinned.id, "2"]);
    await child.waitFor("ready");
    await child.waitFor("commit 2");
    await child.kill();
    assert.equal(await relay.destinations.get(pinned.id), null);
    const left = (await keysUnder(kv, ["relay_due", pinned.id])).length;
    assert.ok(left > 0 && left < N, `${left} of ${N} entries left: the kill was not mid-removal`);

    const later = createRelay(kv, { pollMs: 50 }); // another process, after the crash
    const worker = later.run();
    try {
      await until(async () => await leftOf(kv, pinned.id) === 0, 10_000, "the removed destination's entries deleted");
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

Deno.test("an entry written for a pinned destination just removed elsewhere is deleted by a worker's housekeeping", async () => {
  const kv = await Deno.openKv(":memory:");
  const writer = createRelay(kv, { allowPrivateNetwork: true });
  const admin = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const pinned = await writer.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    assert.equal(await admin.destinations.remove(pinned.id), true);
    // The writer trusts its list for a second (docs/relay.md): this entry lands in the removed one's partition.
    await writeAll(kv, writer.write, [postback("h1", 0, P)]);
    assert.equal((await keysUnder(kv, ["relay_due", pinned.id])).length, 1);

    const worker = admin.run();
    try {
      await until(
        async () => await leftOf(kv, pinned.id) === 0,
        10_000,
        "the entry of the removed destination deleted",
      );
    } finally {
      await worker.stop();
    }
  } finally {
    await writer.close();
    await admin.close();
    kv.close();
  }
});
