// relay.forwards(): a postback item's entries found by the postback, with
// each one's destination, state, attempts and next attempt time, kept in
// the commits that add, finish and redeliver the entry.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay, type RelayForward } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "f".repeat(64);

Deno.test("relay.forwards() shows each item's entries pending, then delivered or waiting for their next attempt", async () => {
  const kv = await Deno.openKv(":memory:");
  const good = startApp();
  let badStatus = 500;
  const bad = startApp(() => new Response("no", { status: badStatus }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [60_000] });
  try {
    await seedHooks(kv);
    const ok = await relay.destinations.add({ url: good.url });
    const failing = await relay.destinations.add({ url: bad.url, hookIds: ["h1"] });
    // Once an add resolves, this process's list has it: write adds entries at once (not a fan-out record).
    await writeAll(kv, relay.write, [postback("h1", 0, P), postback("h1", 1, P)], 2);
    const before = await relay.forwards(P);
    assert.equal(before.length, 4); // two items, two destinations
    assert.ok(before.every((f) => f.state === "pending" && f.attempts === 0 && typeof f.nextAttemptAt === "number"));
    assert.deepEqual(before.map((f) => f.index), [0, 0, 1, 1]);
    assert.deepEqual((await relay.forwards(P, 1)).map((f) => f.index), [1, 1]);
    assert.deepEqual(await relay.forwards("another postback"), []);

    const worker = relay.run();
    await good.waitFor(2);
    await bad.waitFor(2);
    let after: RelayForward[] = [];
    await until(
      async () => (after = await relay.forwards(P)).every((f) => f.attempts === 1),
      5_000,
      "one attempt each",
    );
    const byDestination = (id: string) => after.filter((f) => f.destinationId === id);
    assert.deepEqual(byDestination(ok.id).map((f) => [f.state, f.nextAttemptAt]), [["delivered", null], [
      "delivered",
      null,
    ]]);
    for (const f of byDestination(failing.id)) {
      assert.equal(f.state, "pending");
      assert.ok(f.nextAttemptAt! >= Date.now() + 50_000, "the next attempt follows the schedule's wait");
      assert.deepEqual((await relay.attempts(f.entryId)).map((a) => a.status), [500]);
    }
    // The app saw the entries under the ids forwards names.
    assert.deepEqual(
      new Set(bad.received.map((r) => r.id)),
      new Set(byDestination(failing.id).map((f) => f.entryId)),
    );
    await worker.stop();
  } finally {
    badStatus = 200;
    await relay.close();
    await good.close();
    await bad.close();
    kv.close();
  }
});

Deno.test("relay.forwards() shows a dead letter as dead and, once redelivered, pending again with the same id", async () => {
  const kv = await Deno.openKv(":memory:");
  let status = 500;
  const app = startApp(() => new Response("no", { status }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [10] });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await new Promise((r) => setTimeout(r, 50));
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    let forwards: RelayForward[] = [];
    await until(async () => (forwards = await relay.forwards(P, 0))[0]?.state === "dead", 5_000, "a dead letter");
    assert.equal(forwards.length, 1);
    assert.equal(forwards[0].attempts, 2);
    assert.equal(forwards[0].nextAttemptAt, null);
    status = 200;
    await worker.stop();
    assert.equal(await relay.redeliver(forwards[0].entryId), true);
    const again = await relay.forwards(P, 0);
    assert.deepEqual(again.map((f) => [f.entryId, f.state, f.attempts]), [[forwards[0].entryId, "pending", 0]]);
    const second = relay.run();
    await until(async () => (await relay.forwards(P, 0))[0].state === "delivered", 5_000, "the redelivery");
    await second.stop();
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay.forwards() shows a fanned-out item without a destination until a worker turns it into entries", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  try {
    await seedHooks(kv);
    const admin = createRelay(kv, { allowPrivateNetwork: true });
    const destination = await admin.destinations.add({ url: app.url });
    await admin.close();
    const relay = createRelay(kv, { allowPrivateNetwork: true }); // just started: its list is not known yet
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    const waiting = await relay.forwards(P);
    assert.deepEqual(waiting.map((f) => [f.destinationId, f.state]), [[null, "pending"]]);
    const worker = relay.run();
    await app.waitFor(1);
    let forwards: RelayForward[] = [];
    await until(async () => (forwards = await relay.forwards(P))[0]?.state === "delivered", 5_000, "the delivery");
    await worker.stop();
    await relay.close();
    assert.deepEqual(forwards.map((f) => [f.entryId, f.destinationId]), [[app.received[0].id, destination.id]]);
  } finally {
    await app.close();
    kv.close();
  }
});

Deno.test("relay.forwards() refuses an empty postback id and a bad index", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    await assert.rejects(() => relay.forwards(""), TypeError);
    await assert.rejects(() => relay.forwards(P, -1), RangeError);
    await assert.rejects(() => relay.forwards(P, 1.5), /'index' must be an integer of 0 or more, got 1.5/);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("relay.forwards() lists every forward of a postback, past a thousand", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    // 11 destinations and a postback of 100 items (the receiver's most): 1,100 forwards.
    for (let i = 0; i < 11; i++) await relay.destinations.add({ url: `http://127.0.0.1:9/hooks/${i}` });
    const items = Array.from({ length: 100 }, (_, index) => postback("h1", index, P));
    await writeAll(kv, relay.write, items, 10);
    const [all, again] = await Promise.all([relay.forwards(P), relay.forwards(P)]);
    assert.equal(all.length, 1_100);
    assert.equal(new Set(all.map((f) => f.entryId)).size, 1_100);
    assert.ok(all.every((f) => f.destinationId !== null), "entries, not fan-out records");
    assert.deepEqual(all.map((f) => f.index), items.flatMap((_, index) => Array(11).fill(index)));
    assert.deepEqual(again, all);
    assert.equal((await relay.forwards(P, 99)).length, 11);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("relay.forwards() answers any postback id and index from outside with a list, or a TypeError or RangeError", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: "binary", maxLength: 80 }), fc.string({ minLength: 2100, maxLength: 3000 })),
        fc.option(fc.oneof(fc.integer(), fc.double()), { nil: undefined }),
        async (postbackId, index) => {
          try {
            assert.deepEqual(await relay.forwards(postbackId, index), []);
          } catch (error) {
            assert.ok(error instanceof TypeError || error instanceof RangeError, String(error));
            const badIndex = index !== undefined && (!Number.isInteger(index) || index < 0);
            assert.ok(postbackId === "" || badIndex, String(error));
          }
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    await relay.close();
    kv.close();
  }
});
