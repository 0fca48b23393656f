// Taking entries: many to a commit under one check of the partition's take
// counter. Workers of two relays on one KV deliver each entry once, and
// entries as an earlier version left them (fresh, or under a lease that ran
// out) are taken and delivered once.

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
    // The stored layout: ["relay_due", partition, dueAt, id] holding the entry; a held one sits at its lease's end.
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
      attempts: 1,
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
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
