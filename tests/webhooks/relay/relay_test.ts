// createRelay against a real destination on 127.0.0.1: signatures, the body,
// webhook-id across attempts, attempts, dead letters and redelivery, pinned
// destinations, and what a destination added elsewhere changes.

import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("relay delivers a postback signed so that standardwebhooks verifies it, with API.md's body", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    const worker = relay.run();
    const accepted = Date.UTC(2026, 0, 2, 3, 4, 5);
    await writeAll(kv, relay.write, [postback("h1", 0, "a".repeat(64), accepted), postback("h2", 0)]);
    await app.waitFor(1);
    await worker.stop();
    assert.equal(app.received.length, 1); // h2 matches no destination
    const got = app.received[0];
    assert.equal(got.method, "POST");
    assert.equal(got.contentType, "application/json");
    assert.match(got.id, /^msg_/);
    const verified = new Webhook(destination.secret).verify(got.body, {
      "webhook-id": got.id,
      "webhook-timestamp": got.timestamp,
      "webhook-signature": got.signature,
    });
    assert.deepEqual(verified, {
      type: "jive:created",
      timestamp: "2026-01-02T03:04:05.000Z",
      data: { webhook: "h1", tenantId: "t1", postbackId: "a".repeat(64), index: 0, activity: postback("h1").activity },
    });
    assert.throws(() =>
      new Webhook("whsec_" + btoa("another secret of 32 bytes......")).verify(got.body, {
        "webhook-id": got.id,
        "webhook-timestamp": got.timestamp,
        "webhook-signature": got.signature,
      })
    );
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay keeps webhook-id across attempts and records each attempt with the first 1 KiB of the answer", async () => {
  const kv = await Deno.openKv(":memory:");
  let calls = 0;
  const app = startApp(() => ++calls < 3 ? new Response("x".repeat(3000), { status: 500 }) : new Response("thanks"));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [20, 20, 20] });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1")]);
    await app.waitFor(3);
    const id = app.received[0].id;
    assert.deepEqual(app.received.map((r) => r.id), [id, id, id]);
    let attempts = await relay.attempts(id);
    await until(async () => (attempts = await relay.attempts(id)).length === 3, 5_000, "three attempts");
    await worker.stop();
    assert.deepEqual(attempts.map((a) => a.status), [500, 500, 200]);
    assert.equal(attempts[0].response, "x".repeat(1024));
    assert.equal(attempts[2].response, "thanks");
    assert.ok(attempts.every((a) => a.durationMs >= 0 && a.error === undefined));
    assert.ok(attempts[1].time >= attempts[0].time + 20);
    assert.equal((await relay.deadLetters()).values.length, 0);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay makes an entry a dead letter after the last wait, and redeliver sends it again with the same id", async () => {
  const kv = await Deno.openKv(":memory:");
  let status = 500;
  const app = startApp(() => new Response("no", { status }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [10, 10] });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1")]);
    await app.waitFor(3);
    await until(async () => (await relay.deadLetters()).values.length === 1, 5_000, "a dead letter");
    const [dead] = (await relay.deadLetters()).values;
    assert.equal(dead.id, app.received[0].id);
    assert.equal(dead.attempts, 3);
    assert.equal(dead.reason, "HTTP 500");
    assert.equal(dead.destinationId, destination.id);
    assert.deepEqual((await relay.deadLetters({ destinationId: destination.id })).values.map((d) => d.id), [dead.id]);
    assert.deepEqual((await relay.deadLetters({ destinationId: "other" })).values, []);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(app.received.length, 3); // no fourth attempt
    status = 200;
    assert.equal(await relay.redeliver(dead.id), true);
    assert.equal(await relay.redeliver(dead.id), false);
    await app.waitFor(4);
    assert.equal(app.received[3].id, dead.id);
    await until(async () => (await relay.attempts(dead.id)).at(-1)?.status === 200, 5_000, "the redelivery");
    await worker.stop();
    assert.equal((await relay.deadLetters()).values.length, 0);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay disables a destination that answers 410 and sends it nothing more", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("gone", { status: 410 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [10] });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await app.waitFor(1);
    await until(async () => (await relay.deadLetters()).values.length === 1, 5_000, "a dead letter");
    assert.equal((await relay.destinations.get(destination.id))?.enabled, false);
    assert.match((await relay.deadLetters()).values[0].reason, /410/);
    await writeAll(kv, relay.write, [postback("h1", 1), postback("h1", 2)]);
    await new Promise((r) => setTimeout(r, 300));
    await worker.stop();
    assert.equal(app.received.length, 1);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("relay delivers a pinned destination only by a worker started for it", async () => {
  const kv = await Deno.openKv(":memory:");
  const shared = startApp();
  const laptop = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: shared.url });
    const pinned = await relay.destinations.add({ url: laptop.url, pinned: true });
    assert.equal(pinned.pinned, true);
    const general = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0), postback("h1", 1)]);
    await shared.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(laptop.received.length, 0);
    const own = relay.run({ destinations: [pinned.id] });
    await laptop.waitFor(2);
    await own.stop();
    await general.stop();
    assert.equal(shared.received.length, 2);
    assert.equal(laptop.received.length, 2);
  } finally {
    await relay.close();
    await shared.close();
    await laptop.close();
    kv.close();
  }
});

Deno.test("relay.write sees a destination added or removed by another relay within 1 s", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const writer = createRelay(kv, { allowPrivateNetwork: true });
  const admin = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const writtenAt: number[] = [];
    const since = (t: number): number[] => writtenAt.flatMap((at, i) => at > t ? [i] : []);
    // Writes every 20 ms for `ms`, and on until more than ten were written past `after` (however slowly they go).
    const pump = async (ms: number, after = -Infinity): Promise<void> => {
      const end = performance.now() + ms;
      while (performance.now() < end || since(after).length <= 10) {
        writtenAt.push(performance.now());
        await writeAll(kv, writer.write, [postback("h1", writtenAt.length - 1)]);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await pump(300); // warms the writer's list: no destination
    const added = await admin.destinations.add({ url: app.url });
    const addedAt = performance.now();
    await pump(1_500, addedAt + 1_000);
    const worker = admin.run();
    const indexes = () => new Set(app.received.map((r) => JSON.parse(r.body).data.index as number));
    // Every postback written more than 1 s after the add reached the app, and none from before the add.
    const late = since(addedAt + 1_000);
    assert.ok(late.length > 10);
    await until(() => late.every((i) => indexes().has(i)), 20_000, "the postbacks written 1 s after the add");
    assert.ok([...indexes()].every((i) => writtenAt[i] > addedAt - 50));
    await admin.destinations.remove(added.id);
    const removedAt = performance.now();
    await pump(1_500, removedAt + 1_000);
    await new Promise((r) => setTimeout(r, 300));
    await worker.stop();
    const after = since(removedAt + 1_000);
    assert.ok(after.length > 10);
    assert.ok(after.every((i) => !indexes().has(i)));
  } finally {
    await writer.close();
    await admin.close();
    await app.close();
    kv.close();
  }
});
