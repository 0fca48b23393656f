// Taking entries: many to a commit under one check of the partition's take
// counter. Workers of two relays on one KV deliver each entry once, and
// entries as an earlier version left them (fresh, or under a lease that ran
// out) are taken and delivered once; an entry is stored without what its
// key tells.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

async function outboxEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: ["relay_due"] }, { limit: 1 })) return false;
  return true;
}

Deno.test("workers of two relays on one KV, taking from the same due entries, deliver each entry once", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(async () => {
    await new Promise((r) => setTimeout(r, 1));
    return new Response("ok");
  });
  const relays = [createRelay(kv, { allowPrivateNetwork: true }), createRelay(kv, { allowPrivateNetwork: true })];
  try {
    await seedHooks(kv);
    await relays[0].destinations.add({ url: app.url });
    await new Promise((r) => setTimeout(r, 50));
    await relays[1].destinations.add({ url: "http://127.0.0.1:9/unused", hookIds: ["h2"] }); // its list confirmed too
    await new Promise((r) => setTimeout(r, 50));
    const items = Array.from({ length: 300 }, (_, i) => postback("h1", i, "t".repeat(64)));
    await writeAll(kv, relays[0].write, items, 10);
    const workers = relays.map((r) => r.run({ concurrency: 8 }));
    await until(async () => app.received.length >= 300 && await outboxEmpty(kv), 30_000, "every entry");
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all(workers.map((w) => w.stop()));
    assert.equal(app.received.length, 300, "an entry was delivered twice");
    assert.equal(new Set(app.received.map((r) => r.id)).size, 300);
    const forwards = await relays[0].forwards("t".repeat(64));
    assert.equal(forwards.length, 300);
    assert.ok(forwards.every((f) => f.state === "delivered" && f.attempts === 1));
  } finally {
    for (const relay of relays) await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a worker delivers once each entry an earlier version left, fresh or under a lease that ran out", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    // The layout up to this version: ["relay_due", partition, dueAt, id] holding the whole entry (its id, partition
    // and attempts included); a held one sits at its lease's end. Even items had no attempt yet, odd ones one.
    const now = Date.now();
    const item = (i: number) => ({
      hookId: "h1",
      tenantId: "t1",
      postbackId: "u".repeat(64),
      index: i,
      activity: { verb: "jive:created", title: `item ${i}` },
      acceptedAt: now - 60_000,
    });
    const entry = (i: number) => ({
      ...item(i),
      id: `msg_upgrade${i}`,
      destinationId: destination.id,
      partition: "*",
      attempts: i % 2,
    });
    const atomic = kv.atomic();
    for (let i = 0; i < 12; i++) atomic.set(["relay_due", "*", now - 30_000 + i, `msg_upgrade${i}`], entry(i));
    for (let i = 12; i < 24; i++) {
      const until = now - 1_000 + i;
      atomic.set(["relay_due", "*", until, `msg_upgrade${i}`], {
        ...entry(i),
        lease: { owner: "a crashed worker", until },
      });
    }
    assert.ok((await atomic.commit()).ok);
    const worker = relay.run();
    await until(async () => app.received.length >= 24 && await outboxEmpty(kv), 10_000, "every entry");
    await worker.stop();
    assert.deepEqual(
      app.received.map((r) => r.id).sort(),
      Array.from({ length: 24 }, (_, i) => `msg_upgrade${i}`).sort(),
    );
    for (const id of ["msg_upgrade0", "msg_upgrade23"]) {
      assert.deepEqual((await relay.attempts(id)).map((a) => a.status), [200]);
    }
    assert.deepEqual(
      JSON.parse(app.received.find((r) => r.id === "msg_upgrade5")!.body).data.activity,
      item(5).activity,
    );
    // Each delivery counts on from the attempts the old entry held.
    const forwards = await relay.forwards("u".repeat(64));
    assert.equal(forwards.length, 24);
    for (const f of forwards) {
      assert.deepEqual([f.entryId, f.state, f.attempts], [`msg_upgrade${f.index}`, "delivered", f.index % 2 + 1]);
    }
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("write stores an entry without what its key tells, and a worker sends it under the id its key holds", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1", 0, "w".repeat(64))]);
    const due = await Array.fromAsync(kv.list<Record<string, unknown>>({ prefix: ["relay_due"] }));
    assert.equal(due.length, 1);
    const [, partition, , id] = due[0].key;
    assert.equal(partition, "*");
    assert.match(String(id), /^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    // The id and the partition are in the key, and no attempt was made yet: the value holds none of them.
    assert.deepEqual(Object.keys(due[0].value).sort(), [
      "acceptedAt",
      "activity",
      "destinationId",
      "hookId",
      "index",
      "postbackId",
      "tenantId",
    ]);
    assert.equal(due[0].value.destinationId, destination.id);
    const worker = relay.run();
    await until(() => outboxEmpty(kv), 5_000, "the delivery");
    await worker.stop();
    assert.deepEqual(app.received.map((r) => r.id), [id]);
    assert.deepEqual((await relay.attempts(String(id))).map((a) => a.status), [200]);
    assert.deepEqual((await relay.forwards("w".repeat(64))).map((f) => [f.entryId, f.state, f.attempts]), [
      [id, "delivered", 1],
    ]);
    // Ids made in later milliseconds: their random parts (the last 16 characters) are drawn afresh.
    const ids = [String(id)];
    for (let i = 1; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 3));
      await writeAll(kv, relay.write, [postback("h1", 0, `w${i}`.repeat(32))]);
      ids.push((await relay.forwards(`w${i}`.repeat(32)))[0].entryId);
    }
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids.map((x) => x.slice(-16))).size, 4);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("removing a pinned destination deletes its waiting entries and their forwards", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const pinned = await relay.destinations.add({ url: "http://127.0.0.1:9/", pinned: true });
    const P = "r".repeat(64);
    await writeAll(kv, relay.write, [postback("h1", 0, P), postback("h1", 1, P)]);
    assert.deepEqual((await relay.forwards(P)).map((f) => [f.destinationId, f.state]), [
      [pinned.id, "pending"],
      [pinned.id, "pending"],
    ]);
    await relay.destinations.remove(pinned.id);
    assert.equal(await outboxEmpty(kv), true);
    assert.deepEqual(await relay.forwards(P), []);
  } finally {
    await relay.close();
    kv.close();
  }
});
