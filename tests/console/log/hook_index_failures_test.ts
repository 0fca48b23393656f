// The hook index when a write fails (issue 23): a pass killed at its commit
// leaves the mark and packs as they were, and a postback built again after its
// group failed is packed at the number it was stored at only.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";
import { commitInGroup } from "../../../webhooks/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";
import { keys, postback, seqs, store } from "./_hook_index.ts";

Deno.test("an index pass killed at its commit leaves the mark and the packs as they were; the next pass writes them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const deliveries = new DeliveryStore(kv);
    await store(kv, deliveries, ["a", "b", "a"]);
    // A KV whose commits fail, as a process killed at that moment would leave it.
    const broken = new Proxy(kv, {
      get(target, name) {
        if (name !== "atomic") return Reflect.get(target, name).bind(target);
        return () => {
          const op = target.atomic();
          op.commit = () => Promise.reject(new Error("killed"));
          return op;
        };
      },
    });
    await assert.rejects(new DeliveryStore(broken).index(), /killed/);
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, null);
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), []);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [3, 1]);
    await deliveries.index();
    assert.deepEqual(await keys(kv, "console_delivery_hook_pack"), [
      ["console_delivery_hook_pack", "a", 3],
      ["console_delivery_hook_pack", "b", 2],
    ]);
    assert.deepEqual(seqs(await deliveries.list({ hookId: "a" })), [3, 1]);
  } finally {
    kv.close();
  }
});

/** The receiver's report of postback `name` (one item), stored at `first`. */
function storedAt(deliveries: DeliveryStore, name: string, first: number): Promise<void> {
  const postbackId = `${name}-`.padEnd(64, "0");
  const attempt = { postbackId, status: 200, reason: "Delivered", durationMs: 1, itemCount: 1 };
  return deliveries.recordAttempt({ ...attempt, receivedAt: 0, bodyExcerpt: "", headers: {} }, first);
}

/** A one-item postback `name` to `hookId`, written by the receiver's group commit (built at whatever number it gets). */
function groupWrite(
  kv: Deno.Kv,
  deliveries: DeliveryStore,
  hookId: string,
  name: string,
  checks: Deno.AtomicCheck[] = [],
) {
  return commitInGroup(kv, {
    checks,
    sequence: ["console_delivery_seq"],
    count: 1,
    build: (atomic, first) => {
      const item = postback(hookId, first);
      Object.assign(item, { postbackId: `${name}-`.padEnd(64, "0") });
      deliveries.write(item, atomic);
    },
  });
}

Deno.test("a postback built again at another number after its group failed is packed at the number it was stored at only", () =>
  withTwoHandles(async (kv, other) => {
    const [mine, theirs] = [new DeliveryStore(kv, { retain: 10_000 }), new DeliveryStore(other, { retain: 10_000 })];
    // A's own check fails at the group's commit (its record was edited meanwhile): P, built at 2 beside it, is
    // built again at 1 alone.
    const stale = await kv.get(["record"]);
    await kv.set(["record"], 2);
    const [a, p] = await Promise.all([
      groupWrite(kv, mine, "a", "A", [{ key: stale.key, versionstamp: stale.versionstamp }]),
      groupWrite(kv, mine, "p", "P"),
    ]);
    assert.equal(a.kind, "failed");
    assert.equal(p.kind, "committed");
    await storedAt(mine, "P", 1);
    // Another process stores number 2.
    const op = other.atomic();
    theirs.write(postback("b", 2), op);
    assert.ok((await op.set(["console_delivery_seq"], 2).commit()).ok);
    await mine.index();
    assert.deepEqual(seqs(await mine.list({ hookId: "p" })), [1]);
    assert.deepEqual(seqs(await mine.list({ hookId: "b" })), [2]);
    // In one process too: the mark never passes what is stored, and the next postback is listed.
    const q = await groupWrite(kv, mine, "q", "Q");
    assert.equal(q.kind, "committed");
    await storedAt(mine, "Q", 3);
    await mine.index();
    assert.equal((await kv.get(["console_delivery_hook_mark"])).value, 3);
    assert.deepEqual(seqs(await mine.list({ hookId: "q" })), [3]);
    assert.deepEqual(seqs(await mine.list({ hookId: "p" })), [1]);
  }));
