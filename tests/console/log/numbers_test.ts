// The log's numbers (issue 41): time-major, from a writer slot each process
// leases, so no key is shared by every writer. Numbers only grow within a
// process, two processes never take one, a lease is renewed by use and runs
// out when its process stops, and its next owner numbers past it.

import assert from "node:assert/strict";
import { Allocator, EPOCH, LEASE_MS, numberAt, PER_SLOT, SLOTS } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";

async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

Deno.test("numbers grow within a process, a postback's items take consecutive ones, past 128 a ms the next ms", () =>
  withKv(async (kv) => {
    let now = EPOCH + 1_000;
    const numbers = new Allocator(kv, () => now);
    await numbers.ready();
    const slot = numbers.slot;
    assert.ok(slot >= 0 && slot < SLOTS);
    const first = numbers.take(100);
    assert.equal(first, numberAt(now) + slot * PER_SLOT);
    // 100 + 50 > 128: the next millisecond, ahead of the clock.
    const second = numbers.take(50);
    assert.equal(second, numberAt(now + 1) + slot * PER_SLOT);
    const third = numbers.take(1);
    assert.equal(third, second + 50);
    // The clock goes back (a step of NTP): numbers still grow.
    now -= 500;
    assert.ok(numbers.take(1) > third);
    assert.throws(() => numbers.take(PER_SLOT + 1), RangeError);
    assert.throws(() => numbers.take(0), RangeError);
  }));

Deno.test("two processes on one KV file hold different slots and never take one number", () =>
  withTwoHandles(async (a, b) => {
    const [x, y] = [new Allocator(a), new Allocator(b)];
    await Promise.all([x.ready(), y.ready()]);
    assert.notEqual(x.slot, y.slot);
    const taken = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      for (const numbers of [x, y]) {
        const first = numbers.take(1 + (i % 7));
        for (let k = 0; k < 1 + (i % 7); k++) {
          assert.ok(!taken.has(first + k), `number ${first + k} taken twice`);
          taken.add(first + k);
        }
      }
    }
  }));

Deno.test("a lease is renewed by use, runs out when unused, and its next owner numbers past its end", () =>
  withKv(async (kv) => {
    let now = EPOCH + 10_000;
    const first = new Allocator(kv, () => now);
    await first.ready();
    const slot = first.slot;
    const lease = async () => (await kv.get<{ until: number }>(["console_delivery_slot", slot])).value!.until;
    assert.equal(await lease(), now + LEASE_MS);
    // Past a third of it, a use renews it in the background.
    now += LEASE_MS / 2;
    await first.ready();
    // The renewal runs in the background: waited for (up to 5 s; on a loaded machine 20 ms was not always enough).
    for (const until = Date.now() + 5_000; (await lease()) !== now + LEASE_MS && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(await lease(), now + LEASE_MS);
    const end = await lease();
    // Unused past its end: its process may number no more in that slot.
    now = end;
    assert.throws(() => first.take(1), /holds no writer slot/);
    // Every other slot taken: a new process gets the expired one, and numbers from its end on.
    for (let s = 0; s < SLOTS; s++) {
      if (s !== slot) await kv.set(["console_delivery_slot", s], { owner: "other", until: now + LEASE_MS });
    }
    now = end + 5;
    const next = new Allocator(kv, () => now);
    await next.ready();
    assert.equal(next.slot, slot);
    assert.ok(next.take(1) >= numberAt(end) + slot * PER_SLOT);
    // And the first process, renewing, finds its slot taken and every other slot leased.
    await assert.rejects(first.ready(), /all 32 writer slots are leased/);
  }));
