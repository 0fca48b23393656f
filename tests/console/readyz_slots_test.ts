/**
 * `GET /readyz` of a whole console over a real KV, when the delivery log's
 * writer slots are leased by other processes: a console that finds all 32
 * held by others answers 500 to every postback
 * (tests/console/log/slots_full_test.ts), so it is not ready; once a slot is
 * free, or while it holds one of its own, it is. The check only reads: it
 * takes no lease.
 */

import assert from "node:assert/strict";
import { SLOTS } from "../../console/log/mod.ts";
import { startConsole, type TestConsole } from "./_helpers.ts";

const REASON = "every writer slot of the delivery log is held by another process";

/** Leases every slot to another process until `until`. */
function leaseOthers(t: TestConsole, until: number): Promise<unknown> {
  return Promise.all(
    Array.from({ length: SLOTS }, (_, slot) => t.kv.set(["console_delivery_slot", slot], { owner: "other", until })),
  );
}

async function readyz(t: TestConsole): Promise<[number, unknown]> {
  const res = await fetch(`${t.origin}/readyz`);
  return [res.status, await res.json()];
}

async function owners(t: TestConsole): Promise<string[]> {
  const list = [];
  for await (const entry of t.kv.list<{ owner: string }>({ prefix: ["console_delivery_slot"] })) {
    list.push(entry.value.owner);
  }
  return list;
}

Deno.test("GET /readyz answers 503 while every writer slot is leased by another process, 200 once one is free", async () => {
  const t = await startConsole();
  try {
    assert.deepEqual(await readyz(t), [200, { ready: true }]);
    await leaseOthers(t, Date.now() + 600_000);
    assert.deepEqual(await readyz(t), [503, { ready: false, reason: REASON }]);
    // One other process stopped: its lease ran out, so this console could take its slot.
    await t.kv.set(["console_delivery_slot", 7], { owner: "other", until: Date.now() - 1 });
    assert.deepEqual(await readyz(t), [200, { ready: true }]);
    // /readyz only read: every lease is still the other processes'.
    assert.deepEqual(await owners(t), Array(SLOTS).fill("other"));
  } finally {
    await t.close();
  }
});

Deno.test("GET /readyz answers 200 for a console that holds a writer slot while the other 31 are leased", async () => {
  const t = await startConsole();
  try {
    await t.app.deliveries.ready();
    const held = await Array.fromAsync(t.kv.list({ prefix: ["console_delivery_slot"] }));
    assert.equal(held.length, 1, "the console leased one slot");
    const own = held[0].key[1] as number;
    await Promise.all(
      Array.from({ length: SLOTS }, (_, slot) => slot)
        .filter((slot) => slot !== own)
        .map((slot) => t.kv.set(["console_delivery_slot", slot], { owner: "other", until: Date.now() + 600_000 })),
    );
    assert.deepEqual(await readyz(t), [200, { ready: true }]);
    assert.equal((await t.kv.get(["console_delivery_slot", own])).versionstamp, held[0].versionstamp);
  } finally {
    await t.close();
  }
});
