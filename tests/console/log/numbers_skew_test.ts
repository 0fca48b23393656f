// The log's numbers against processes whose clocks disagree (issue 41's
// claim: "two processes never take one number, whatever their clocks").
// Time passing is what KV's expiry does with it: a test cannot wait a
// minute, so `passTime` removes from the KV file the entries whose expiry
// falls by then, as KV would.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Allocator, EPOCH, LEASE_MS, SLOTS } from "../../../console/log/mod.ts";

/** What KV's expiry does once `ms` more have passed: the entries that expire by then are gone. */
function passTime(path: string, ms: number): void {
  const db = new DatabaseSync(path);
  try {
    db.prepare("DELETE FROM kv WHERE expiration_ms >= 0 AND expiration_ms <= ?").run(Date.now() + ms);
  } finally {
    db.close();
  }
}

Deno.test("a slot's next owner never takes a number its last owner took, whose clock ran 45 s ahead", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await Deno.openKv(path);
  try {
    const start = EPOCH + 100_000_000;
    const skew = 45_000;
    let aNow = start + skew; // process A's clock, 45 s ahead of B's
    let bNow = start;
    const a = new Allocator(kv, () => aNow);
    await a.ready();
    const slot = a.slot;
    // Every other slot is held for long: B can only get A's.
    for (let s = 0; s < SLOTS; s++) {
      if (s !== slot) await kv.set(["console_delivery_slot", s], { owner: "other", until: Number.MAX_SAFE_INTEGER });
    }
    // A numbers through its lease, then stops (killed, or stalled).
    const taken = new Set<number>();
    for (let t = 0; t < LEASE_MS; t += 100) {
      aNow = start + skew + t;
      taken.add(a.take(1));
    }
    // A minute later by every clock: B leases, and numbers as its clock goes on.
    const minute = 61_000;
    passTime(path, minute);
    bNow = start + minute;
    const b = new Allocator(kv, () => bNow);
    let leased = false;
    for (let t = 0; t < 60_000; t += 100) {
      bNow = start + minute + t;
      // As the receiver does before each postback: leases, or renews when a third of the lease is gone.
      leased = await b.ready().then(() => true, () => false);
      if (!leased) continue;
      const n = b.take(1);
      assert.ok(!taken.has(n), `number ${n} taken by both processes (B at ${t} ms past the minute)`);
    }
    assert.ok(leased, "B got the slot once A's lease was over by B's clock");
  } finally {
    kv.close();
    await Deno.remove(path).catch(() => {});
  }
});
